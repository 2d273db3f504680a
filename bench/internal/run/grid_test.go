package run

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// TestGridCells: the product's cells, in its order, without the skipped
// ones, with each learner's own swept values and each set's own orders.
func TestGridCells(t *testing.T) {
	for _, c := range []struct {
		name string
		g    Grid
		want string
	}{
		{"defaults", Grid{Learners: 2, Sets: 1}, "0/0/0/D 1/0/0/D"},
		{"sets outermost", Grid{Learners: 2, Sets: 2}, "0/0/0/D 1/0/0/D 0/1/0/D 1/1/0/D"},
		{"js per learner", Grid{Learners: 2, Sets: 1, Js: func(l int) []int {
			if l == 0 {
				return []int{Default}
			}
			return []int{-1, 0, 1}
		}}, "0/0/0/D 1/0/0/-1 1/0/0/0 1/0/0/1"},
		{"orders per set, innermost", Grid{Learners: 1, Sets: 2, Orders: func(s int) int { return s + 1 }, Js: func(int) []int { return []int{3, 4} }},
			"0/0/0/3 0/0/0/4 0/1/0/3 0/1/1/3 0/1/0/4 0/1/1/4"},
		{"skip", Grid{Learners: 3, Sets: 2, Skip: func(c Cell) bool { return c.Learner == 1 && c.Set == 1 }},
			"0/0/0/D 1/0/0/D 2/0/0/D 0/1/0/D 2/1/0/D"},
		{"empty", Grid{Learners: 0, Sets: 3}, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			var got []string
			for _, x := range c.g.Cells() {
				j := fmt.Sprint(x.J)
				if x.J == Default {
					j = "D"
				}
				got = append(got, fmt.Sprintf("%d/%d/%d/%s", x.Learner, x.Set, x.Order, j))
			}
			if s := strings.Join(got, " "); s != c.want {
				t.Errorf("cells %q, want %q", s, c.want)
			}
		})
	}
}

// TestGridRun: every cell runs once, whatever the cost order, and its
// values come back under its own cell; a failing cell fails the grid.
func TestGridRun(t *testing.T) {
	g := Grid{Learners: 3, Sets: 4, Orders: func(int) int { return 2 }, Js: func(int) []int { return []int{-2, 5} },
		Cost: func(c Cell) float64 { return float64(c.Set) },
		Do: func(c Cell) ([]float64, error) {
			return []float64{float64(100*c.Learner + 10*c.Set + c.Order), float64(c.J)}, nil
		}}
	res, err := g.Run()
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 3*4*2*2 {
		t.Fatalf("%d results, want %d", len(res), 3*4*2*2)
	}
	for _, c := range g.Cells() {
		want := []float64{float64(100*c.Learner + 10*c.Set + c.Order), float64(c.J)}
		if !slices.Equal(res[c], want) {
			t.Errorf("cell %+v: %v, want %v", c, res[c], want)
		}
	}
	if v, ok := res.Value(Cell{1, 2, 0, 5}, 2); ok {
		t.Errorf("Value past the end: %v, true", v)
	}
	if got, want := res.Mean(2, 3, 5, 2, 0), (230.0/2 + 231.0/2); got != want {
		t.Errorf("Mean %v, want %v", got, want)
	}
	g.Do = func(c Cell) ([]float64, error) {
		if c == (Cell{2, 1, 1, -2}) {
			return nil, errors.New("boom")
		}
		return nil, nil
	}
	if _, err := g.Run(); err == nil || !strings.Contains(err.Error(), "boom") {
		t.Errorf("a failing cell: error %v", err)
	}
}
