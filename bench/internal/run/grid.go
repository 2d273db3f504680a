package run

import (
	"math"
	"sort"
	"sync"
)

// Default is the J of a cell run at the learner's default, without the
// swept flag.
const Default = math.MinInt32

// Cell is one run of a Grid, by index into the suite's own axes: a
// learner, a dataset and one of its training orders, and J, the log2 of
// the swept parameter (Default: not swept).
type Cell struct {
	Learner, Set, Order, J int
}

// Grid is the cartesian product learners × sets × training orders ×
// swept values that the accuracy-style suites run: every cell is one or
// two runs of the built binary, independent of the others, so they run on
// all cores (Parallel) and the results do not depend on the schedule. The
// suites keep what their axes mean (flags, files) and read the results
// back by Cell in the order they print.
type Grid struct {
	Learners, Sets int
	// Orders returns how many training orders set has (nil: 1).
	Orders func(set int) int
	// Js returns the swept values of a learner (nil: {Default}).
	Js func(learner int) []int
	// Skip leaves a cell out of the product (nil: none).
	Skip func(Cell) bool
	// Cost orders the runs, the larger first, so that the slow ones
	// start early and the pool stays busy (nil: product order).
	Cost func(Cell) float64
	// Do runs one cell and returns its values (an accuracy, a loss …).
	Do func(Cell) ([]float64, error)
}

// Results holds the values each cell's Do returned.
type Results map[Cell][]float64

// Cells returns the cells of the product, sets outermost, then learners,
// swept values and orders.
func (g Grid) Cells() []Cell {
	var cells []Cell
	for s := 0; s < g.Sets; s++ {
		orders := 1
		if g.Orders != nil {
			orders = g.Orders(s)
		}
		for l := 0; l < g.Learners; l++ {
			js := []int{Default}
			if g.Js != nil {
				js = g.Js(l)
			}
			for _, j := range js {
				for o := 0; o < orders; o++ {
					c := Cell{l, s, o, j}
					if g.Skip == nil || !g.Skip(c) {
						cells = append(cells, c)
					}
				}
			}
		}
	}
	return cells
}

// Run runs every cell (Parallel) and returns their values; the first
// error of any cell fails the grid.
func (g Grid) Run() (Results, error) {
	cells := g.Cells()
	if g.Cost != nil {
		sort.SliceStable(cells, func(a, b int) bool { return g.Cost(cells[a]) > g.Cost(cells[b]) })
	}
	res := make(Results, len(cells))
	var mu sync.Mutex
	jobs := make([]func() error, len(cells))
	for i, c := range cells {
		jobs[i] = func() error {
			v, err := g.Do(c)
			if err != nil {
				return err
			}
			mu.Lock()
			res[c] = v
			mu.Unlock()
			return nil
		}
	}
	return res, Parallel(jobs)
}

// Value returns value i of a cell, and whether the cell ran.
func (r Results) Value(c Cell, i int) (float64, bool) {
	v, ok := r[c]
	if !ok || i >= len(v) {
		return 0, false
	}
	return v[i], true
}

// Mean returns value i of (learner, set, j) averaged over the set's first
// orders training orders: each divided by orders and summed in order of
// the orders, so that the sum does not depend on which run finished
// first.
func (r Results) Mean(learner, set, j, orders, i int) float64 {
	var sum float64
	for o := 0; o < orders; o++ {
		v, _ := r.Value(Cell{learner, set, o, j}, i)
		sum += v / float64(orders)
	}
	return sum
}
