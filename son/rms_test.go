package son_test

import (
	"bytes"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/sparseson/sparseson/fd"
	"github.com/sparseson/sparseson/model"
	"github.com/sparseson/sparseson/son"
	"github.com/sparseson/sparseson/sparse"
)

// TestRMSSplitLayout: on values ±1 every scale is 1, so an RMS split
// (Config.RMS: two more columns per row) must run exactly as a plain
// split — the same β̄·x, Z·x and ‖x‖² from Begin, the same sketch and
// steps — and save the same bytes (Save strips the columns); a plain
// split's model loads as an RMS split and goes on the same. On values ±2
// the RMS split sees ±1: its Begin gives what the plain split's gives on
// the halved example. (Package ada checks the scales' rules against its
// wrapper: TestPrescaledFolded.)
func TestRMSSplitLayout(t *testing.T) {
	newSk := func() sparse.Sketch {
		sk, err := fd.New(fd.Config{M: 4, Alpha: 1})
		if err != nil {
			t.Fatal(err)
		}
		return sk
	}
	rng := rand.New(rand.NewPCG(5, 6))
	data := make([]sparse.Example, 300)
	for i := range data {
		ex := sparse.Example{Weight: 1}
		for range 1 + rng.IntN(6) {
			ex.Idx = append(ex.Idx, uint32(rng.IntN(40)))
			ex.Val = append(ex.Val, float64(2*rng.IntN(2)-1))
		}
		data[i] = ex
	}
	step := func(sp *son.Split, ex *sparse.Example) (float64, []float64, float64) {
		bx, z, n := sp.Begin(ex, true)
		z = append([]float64(nil), z...)
		zt := sp.Sketch(0.3 * math.Tanh(bx+1))
		sp.Step(0.1*math.Tanh(bx), -0.05, zt)
		sp.Finish()
		return bx, z, n
	}
	same := func(t *testing.T, what string, a, b *son.Split, from int) {
		t.Helper()
		for i := from; i < len(data); i++ {
			ex := &data[i]
			ab, az, an := step(a, ex)
			bb, bz, bn := step(b, ex)
			if ab != bb || an != bn || !equal(az, bz) {
				t.Fatalf("%s, example %d: Begin gives %v %v %v, the plain split %v %v %v", what, i, ab, az, an, bb, bz, bn)
			}
		}
	}
	plain, err := son.NewSplit(9, newSk())
	if err != nil {
		t.Fatal(err)
	}
	rms, err := son.NewRMSSplit(9, newSk())
	if err != nil {
		t.Fatal(err)
	}
	same(t, "fresh", rms, plain, 0)
	if plain.Seen() != rms.Seen() || rms.Scaled() != rms.Seen() || rms.Scale(uint32(data[0].Idx[0])) != 1 {
		t.Fatalf("features %d and %d, %d with a scale, scale %v", plain.Seen(), rms.Seen(), rms.Scaled(), rms.Scale(data[0].Idx[0]))
	}
	pb, rb := saveSplit(t, plain), saveSplit(t, rms)
	if !bytes.Equal(pb, rb) {
		t.Fatal("the RMS split saves other bytes than the plain split")
	}
	_, r, err := model.Parse(pb)
	if err != nil {
		t.Fatal(err)
	}
	loaded, err := son.LoadRMSSplit(r, 9, newSk())
	if err != nil {
		t.Fatal(err)
	}
	keys, sums := rms.Scales()
	if err := loaded.SetScales(keys, sums); err != nil {
		t.Fatal(err)
	}
	plain2, _ := son.NewSplit(9, newSk())
	rms2, _ := son.NewRMSSplit(9, newSk())
	same(t, "loaded", loaded, plainAfter(t, pb, newSk), 0)
	// ±2: the RMS split learns on ±1.
	for i := range data {
		double := data[i]
		double.Val = make([]float64, len(data[i].Val))
		for k, v := range data[i].Val {
			double.Val[k] = 2 * v
		}
		rb, rz, rn := step(rms2, &double)
		pb, pz, pn := step(plain2, &data[i])
		if rb != pb || rn != pn || !equal(rz, pz) {
			t.Fatalf("±2, example %d: Begin gives %v %v %v, the plain split on ±1 %v %v %v", i, rb, rz, rn, pb, pz, pn)
		}
	}
}

// plainAfter loads a plain split from b.
func plainAfter(t *testing.T, b []byte, newSk func() sparse.Sketch) *son.Split {
	t.Helper()
	_, r, err := model.Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	sp, err := son.LoadSplit(r, 9, newSk())
	if err != nil {
		t.Fatal(err)
	}
	return sp
}

func saveSplit(t *testing.T, sp *son.Split) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := model.Encode(&buf, model.Options{}, sp.Save); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func equal(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
			return false
		}
	}
	return true
}
