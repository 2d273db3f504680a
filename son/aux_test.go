package son_test

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/sparseson/sparseson/fd"
	"github.com/sparseson/sparseson/model"
	"github.com/sparseson/sparseson/son"
	"github.com/sparseson/sparseson/sparse"
)

func auxSketch(t *testing.T) sparse.Sketch { return auxSketchM(t, 4) }

// auxSketchM is an FD sketch of size m: at m = 20 (Z's cap 40) the rows
// of a split with leading columns are padded to whole cache lines
// (Learner.setLayout), at m = 4 they are not.
func auxSketchM(t *testing.T, m int) sparse.Sketch {
	t.Helper()
	sk, err := fd.New(fd.Config{M: m, Alpha: 1})
	if err != nil {
		t.Fatal(err)
	}
	return sk
}

func auxStream(n int) []sparse.Example {
	rng := rand.New(rand.NewPCG(7, 8))
	data := make([]sparse.Example, n)
	for i := range data {
		ex := sparse.Example{Weight: 1}
		for range 1 + rng.IntN(6) {
			ex.Idx = append(ex.Idx, uint32(rng.IntN(40)))
			ex.Val = append(ex.Val, 3*rng.NormFloat64())
		}
		data[i] = ex
	}
	return data
}

// auxStep is a split's round as package ada drives it, with the caller's
// state in the auxiliary columns: column k of a feature sums (k+1)·x_j
// over its learned occurrences (x as the core learns on it).
func auxStep(sp *son.Split, ex *sparse.Example) (float64, []float64, float64) {
	bx, z, n := sp.Begin(ex, true)
	z = append([]float64(nil), z...)
	zt := sp.Sketch(0.3 * math.Tanh(bx+1))
	sp.Step(0.1*math.Tanh(bx), -0.05, zt)
	sp.Finish()
	rows, offs, x, col := sp.Aux()
	if col != 0 {
		for i, o := range offs {
			rows[o+col] += x[i]
			rows[o+col+1] += 2 * x[i]
		}
	}
	return bx, z, n
}

// TestAuxSplit: the auxiliary columns (Config.Aux) are the caller's
// alone — a split with them, plain or RMS, runs and saves exactly as
// the same split without (Begin's figures, the sketch, the saved bytes),
// while the columns hold what the caller wrote; a model loaded with
// SetAux goes on the same.
func TestAuxSplit(t *testing.T) {
	data := auxStream(300)
	for _, c := range []struct {
		rms bool
		m   int
	}{{false, 4}, {true, 4}, {false, 20}, {true, 20}} {
		rms := c.rms
		auxSketch := func(t *testing.T) sparse.Sketch { return auxSketchM(t, c.m) }
		t.Run(fmt.Sprintf("%s/m=%d", map[bool]string{false: "plain", true: "rms"}[rms], c.m), func(t *testing.T) {
			base, err := son.NewSplitWith(9, auxSketch(t), son.SplitOptions{RMS: rms})
			if err != nil {
				t.Fatal(err)
			}
			opts := son.SplitOptions{RMS: rms, Aux: 2}
			aux, err := son.NewSplitWith(9, auxSketch(t), opts)
			if err != nil {
				t.Fatal(err)
			}
			want := map[uint32]float64{} // Σ x over learned occurrences
			for i := range data[:200] {
				bb, bz, bn := auxStep(base, &data[i])
				ab, az, an := auxStep(aux, &data[i])
				if ab != bb || an != bn || !equal(az, bz) {
					t.Fatalf("example %d: Begin gives %v %v %v, without the columns %v %v %v", i, ab, az, an, bb, bz, bn)
				}
				_, _, x, _ := aux.Aux()
				for k, j := range data[i].Idx {
					want[j] += x[k]
				}
			}
			got := 0
			aux.AuxRows(func(slot uint32, a []float64) {
				got++
				if a[0] != want[slot] || a[1] != 2*want[slot] {
					t.Errorf("slot %d: columns %v, the caller wrote %v and %v", slot, a, want[slot], 2*want[slot])
				}
				if b := aux.AuxOf(slot); !equal(b, a) {
					t.Errorf("slot %d: AuxOf %v, AuxRows %v", slot, b, a)
				}
			})
			if got != len(want) || aux.AuxOf(1<<8+1000) != nil {
				t.Fatalf("%d slots with columns, %d seen; an unseen slot has %v", got, len(want), aux.AuxOf(1<<8+1000))
			}
			saved := saveSplit(t, aux)
			if !bytes.Equal(saved, saveSplit(t, base)) {
				t.Fatal("the split with auxiliary columns saves other bytes")
			}
			var keys []uint32
			var vals []float64
			aux.AuxRows(func(slot uint32, a []float64) {
				keys = append(keys, slot)
				vals = append(vals, a...)
			})
			_, r, err := model.Parse(saved)
			if err != nil {
				t.Fatal(err)
			}
			loaded, err := son.LoadSplitWith(r, 9, auxSketch(t), opts)
			if err != nil {
				t.Fatal(err)
			}
			if rms {
				k, s := aux.Scales()
				if err := loaded.SetScales(k, s); err != nil {
					t.Fatal(err)
				}
			}
			// Reversed: SetAux takes the features in any order.
			for i, j := 0, len(keys)-1; i < j; i, j = i+1, j-1 {
				keys[i], keys[j] = keys[j], keys[i]
				vals[2*i], vals[2*i+1], vals[2*j], vals[2*j+1] = vals[2*j], vals[2*j+1], vals[2*i], vals[2*i+1]
			}
			if err := loaded.SetAux(keys, vals); err != nil {
				t.Fatal(err)
			}
			for i := range data[200:] {
				ex := &data[200+i]
				lb, lz, ln := auxStep(loaded, ex)
				ab, az, an := auxStep(aux, ex)
				if ab != lb || an != ln || !equal(az, lz) {
					t.Fatalf("example %d after loading: Begin gives %v %v %v, before %v %v %v", 200+i, lb, lz, ln, ab, az, an)
				}
			}
			aux.AuxRows(func(slot uint32, a []float64) {
				if b := loaded.AuxOf(slot); !equal(a, b) {
					t.Errorf("slot %d after loading: columns %v, before %v", slot, b, a)
				}
			})
		})
	}
}

// TestSetAuxCorrupt: auxiliary state that does not fit the split's
// features is refused as model.ErrCorrupt.
func TestSetAuxCorrupt(t *testing.T) {
	data := auxStream(20)
	sp, err := son.NewSplitWith(9, auxSketch(t), son.SplitOptions{Aux: 2})
	if err != nil {
		t.Fatal(err)
	}
	for i := range data {
		auxStep(sp, &data[i])
	}
	var keys []uint32
	sp.AuxRows(func(slot uint32, _ []float64) { keys = append(keys, slot) })
	vals := make([]float64, 2*len(keys))
	for _, c := range []struct {
		name string
		keys []uint32
		vals []float64
	}{
		{"a feature short", keys[1:], vals[2:]},
		{"values short", keys, vals[1:]},
		{"a slot without state", append([]uint32{500}, keys[1:]...), vals},
		{"a slot twice", append([]uint32{keys[1]}, keys[1:]...), vals},
	} {
		t.Run(c.name, func(t *testing.T) {
			if err := sp.SetAux(c.keys, c.vals); !errors.Is(err, model.ErrCorrupt) {
				t.Errorf("SetAux: %v, want model.ErrCorrupt", err)
			}
		})
	}
	plain, err := son.NewSplit(9, auxSketch(t))
	if err != nil {
		t.Fatal(err)
	}
	if err := plain.SetAux(nil, nil); err == nil {
		t.Error("SetAux on a split without columns: no error")
	}
	if _, err := son.NewSplitWith(9, auxSketch(t), son.SplitOptions{Aux: 9}); err == nil {
		t.Error("Aux 9: no error")
	}
}

// TestAuxDot: Split.AuxDot is the sum a caller's loop over Aux's rows
// forms, Σ a_i·x̃_i in the example's order, bit for bit — for either
// auxiliary column, in learning (Begin with create) and in prediction
// (features without state count 0), on examples of every length — and
// a split without SplitOptions.AuxDot says so; the option needs RMS and
// a column that exists.
func TestAuxDot(t *testing.T) {
	data := auxStream(300)
	for k := 1; k <= 2; k++ {
		t.Run(fmt.Sprintf("column %d", k-1), func(t *testing.T) {
			sp, err := son.NewSplitWith(9, auxSketchM(t, 10), son.SplitOptions{RMS: true, Aux: 2, AuxDot: k})
			if err != nil {
				t.Fatal(err)
			}
			for i := range data {
				create := i%5 != 4
				if create {
					auxStep(sp, &data[i]) // columns that change as the stream goes
				}
				sp.Begin(&data[i], create)
				got, ok := sp.AuxDot()
				rows, offs, x, col := sp.Aux()
				var want float64
				for j, o := range offs {
					if o >= 0 {
						want += rows[o+col+k-1] * x[j]
					}
				}
				if !ok || math.Float64bits(got) != math.Float64bits(want) {
					t.Fatalf("example %d (create %v): AuxDot %v, %v; the loop's %v", i, create, got, ok, want)
				}
			}
		})
	}
	sp, err := son.NewSplitWith(9, auxSketch(t), son.SplitOptions{RMS: true, Aux: 2})
	if err != nil {
		t.Fatal(err)
	}
	sp.Begin(&data[0], true)
	if _, ok := sp.AuxDot(); ok {
		t.Error("a split without AuxDot gave one")
	}
	for _, o := range []son.SplitOptions{{Aux: 2, AuxDot: 1}, {RMS: true, Aux: 2, AuxDot: 3}, {RMS: true, AuxDot: 1}, {RMS: true, Aux: 1, AuxDot: -1}} {
		if _, err := son.NewSplitWith(9, auxSketch(t), o); err == nil {
			t.Errorf("%+v accepted", o)
		}
	}
}
