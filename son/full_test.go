package son_test

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/sparseson/sparseson/internal/dense"
	"github.com/sparseson/sparseson/loss"
	"github.com/sparseson/sparseson/model"
	"github.com/sparseson/sparseson/son"
	"github.com/sparseson/sparseson/sparse"
)

type fsetup struct {
	d, s     int
	lossName string
	alpha, C float64
	diag     bool
	spread   float64
	seed     uint64
}

func (c fsetup) String() string {
	return fmt.Sprintf("d%d_s%d_%s_a%g_C%g_diag%v_spread%g_seed%d", c.d, c.s, c.lossName, c.alpha, c.C, c.diag, c.spread, c.seed)
}

func fSigma(c fsetup) float64 {
	if c.lossName == "squared" {
		return 1 / (8 * c.C * c.C)
	}
	return 0
}

func bitsFor(d int) uint {
	b := uint(1)
	for 1<<b < d {
		b++
	}
	return b
}

func newFull(t testing.TB, c fsetup) *son.Full {
	t.Helper()
	f, err := son.NewFull(son.Config{Bits: bitsFor(c.d), C: c.C, Sigma: fSigma(c), Eta0: 1, Diag: c.diag}, c.alpha, dense.Loss(c.lossName))
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func newFullRef(c fsetup) *dense.FullONS {
	return dense.NewFullONS(c.d, c.alpha, c.C, fSigma(c), 1, 0, c.diag, dense.Loss(c.lossName))
}

func fStream(c fsetup, T int) []sparse.Example {
	return dense.Problem{D: c.d, S: c.s, T: T, Loss: c.lossName, Spread: c.spread, Seed: c.seed}.Examples()
}

func fSensitivity(c fsetup, data []sparse.Example) float64 {
	return dense.Sensitivity(func() interface{ Learn(*sparse.Example) float64 } { return newFullRef(c) }, data, c.seed)
}

// withWeights gives every 5th example a random importance weight in
// [0, 3) (some exactly 0), to exercise the h semantics.
func withWeights(data []sparse.Example, seed uint64) []sparse.Example {
	rng := rand.New(rand.NewPCG(seed, 7))
	for i := range data {
		switch {
		case i%10 == 5:
			data[i].Weight = 0
		case i%5 == 0:
			data[i].Weight = 3 * rng.Float64()
		}
	}
	return data
}

func compareFullWeights(t *testing.T, f *son.Full, want []float64, tol float64) {
	t.Helper()
	var scale float64
	for _, v := range want {
		scale = math.Max(scale, math.Abs(v))
	}
	seen := map[uint32]bool{}
	f.Weights(func(slot uint32, w float64) {
		seen[slot] = true
		if math.Abs(w-want[slot]) > tol*(1+scale) {
			t.Errorf("w[%d]: sparse %.15g reference %.15g", slot, w, want[slot])
		}
	})
	for j, v := range want {
		if !seen[uint32(j)] && v != 0 {
			t.Errorf("w[%d] = %v in the reference but not reported", j, v)
		}
	}
}

// TestFullMatchesFromScratch: the Sherman–Morrison learner against full
// ONS re-factorising A_t = αI + Σĝĝᵀ from scratch at every solve (O(d³)),
// d = 64, 1000 steps, predictions within 1e-9 relative at every step and
// the same final weights. Unlike sketched SON, full ONS is well-posed on
// these streams even with squared loss and α = 0.5 (dense vs dense on a
// 1e-15-perturbed input differs by ≤ 3e-12 over 1000 steps), so squared
// loss runs the full horizon too. The hard regime of docs/algorithms.md §10
// (column scales e^{±1.5}, α = 0.1, C = 2) gets §9 A's 1e-7: its squared
// stream moves by 4e-9 under a 1e-15 input perturbation (dense vs dense),
// and the sparse learner's error (4e-9) is of that size.
func TestFullMatchesFromScratch(t *testing.T) {
	T := 1000
	if testing.Short() {
		T = 300
	}
	var cases []fsetup
	seed := uint64(1)
	for _, diag := range []bool{false, true} {
		for _, lossName := range []string{"logistic", "squared"} {
			for _, alpha := range []float64{0.5, 8} {
				cases = append(cases, fsetup{d: 64, s: 8, lossName: lossName, alpha: alpha, C: 1, diag: diag, seed: seed})
				seed++
			}
			cases = append(cases, fsetup{d: 64, s: 8, lossName: lossName, alpha: 0.1, C: 2, diag: diag, spread: 1.5, seed: seed})
			seed++
		}
	}
	for _, c := range cases {
		t.Run(c.String(), func(t *testing.T) {
			data := withWeights(fStream(c, T), c.seed)
			f, ref := newFull(t, c), newFullRef(c)
			tol := 1e-9
			if c.spread > 0 {
				tol = 1e-7
			}
			var worst float64
			for i := range data {
				a, b := f.Learn(&data[i]), ref.Learn(&data[i])
				worst = max(worst, dense.Rel(a, b))
				if dense.Rel(a, b) > tol {
					t.Fatalf("step %d: sparse %.15g from-scratch %.15g (rel %.3g)", i, a, b, dense.Rel(a, b))
				}
			}
			compareFullWeights(t, f, ref.Weights(), tol)
			sens := "-"
			if !testing.Short() {
				sens = fmt.Sprintf("%.1e", fSensitivity(c, data))
			}
			t.Logf("max rel %.2e over %d steps (sensitivity %s), %d slots, %d clamps", worst, T, sens, f.Seen(), f.Clamps())
		})
	}
}

// TestFullMatchesDenseSON: full ONS equals dense SON (Alg. 1) whose sketch
// keeps every ĝ (dense.FullSketch, SᵀS = Σĝĝᵀ), 1000 steps at 1e-9.
func TestFullMatchesDenseSON(t *testing.T) {
	T := 1000
	if testing.Short() {
		T = 300
	}
	seed := uint64(40)
	for _, diag := range []bool{false, true} {
		for _, lossName := range []string{"logistic", "squared"} {
			c := fsetup{d: 64, s: 8, lossName: lossName, alpha: 1, C: 1, diag: diag, seed: seed}
			seed++
			t.Run(c.String(), func(t *testing.T) {
				data := withWeights(fStream(c, T), c.seed)
				f := newFull(t, c)
				dn := dense.NewSON(c.d, c.C, fSigma(c), 1, 0, c.diag, dense.Loss(c.lossName), dense.NewFullSketch(c.d, c.alpha))
				var worst float64
				for i := range data {
					a, b := f.Learn(&data[i]), dn.Learn(&data[i])
					worst = max(worst, dense.Rel(a, b))
					if dense.Rel(a, b) > 1e-9 {
						t.Fatalf("step %d: full %.15g dense SON %.15g (rel %.3g)", i, a, b, dense.Rel(a, b))
					}
				}
				compareFullWeights(t, f, dn.Weights(), 1e-9)
				t.Logf("max rel %.2e over %d steps", worst, T)
			})
		}
	}
}

// TestFullSketchIsExact: open loop, dense.FullSketch keeps SᵀS = Σĝĝᵀ
// (to 1e-13 relative) with at most d rows.
func TestFullSketchIsExact(t *testing.T) {
	const d = 20
	rng := rand.New(rand.NewPCG(1, 2))
	sk := dense.NewFullSketch(d, 1)
	sum := make([]float64, d*d)
	for step := 0; step < 300; step++ {
		g := make([]float64, d)
		for range 4 {
			g[rng.IntN(d)] = rng.NormFloat64() * math.Exp(3*rng.NormFloat64())
		}
		sk.Update(g)
		for i := range g {
			for j := range g {
				sum[i*d+j] += g[i] * g[j]
			}
		}
		S := sk.S()
		r, _ := S.Dims()
		if r > d {
			t.Fatalf("%d rows", r)
		}
		var worst, scale float64
		for i := 0; i < d; i++ {
			for j := 0; j < d; j++ {
				var v float64
				for k := 0; k < r; k++ {
					v += S.At(k, i) * S.At(k, j)
				}
				worst = max(worst, math.Abs(v-sum[i*d+j]))
				scale = max(scale, math.Abs(sum[i*d+j]))
			}
		}
		if worst > 1e-13*scale {
			t.Fatalf("step %d: ‖SᵀS − Σĝĝᵀ‖_max/‖Σĝĝᵀ‖_max = %.3g", step, worst/scale)
		}
	}
}

// TestFullInverseDrift: over a long stream A⁻¹ stays exactly symmetric and
// close to the inverse of A = αI + Σĝĝᵀ (A from the from-scratch
// reference): ‖A⁻¹A − I‖_max ≤ 1e-12 on well-scaled streams, ≤ 1e-7 on
// the ill-conditioned squared-loss one (see Full's accuracy note), without
// any guard firing.
func TestFullInverseDrift(t *testing.T) {
	T := 10000
	if testing.Short() {
		T = 2000
	}
	for _, c := range []fsetup{
		{d: 64, s: 8, lossName: "logistic", alpha: 1, C: 1, seed: 61},
		{d: 64, s: 8, lossName: "squared", alpha: 8, C: 1, seed: 64},
		{d: 64, s: 8, lossName: "squared", alpha: 0.1, C: 2, spread: 1.5, seed: 62},
		{d: 64, s: 8, lossName: "logistic", alpha: 0.01, C: 2, spread: 1.5, seed: 63},
	} {
		data := fStream(c, T)
		f, ref := newFull(t, c), newFullRef(c)
		for i := range data {
			f.Learn(&data[i])
			ref.Learn(&data[i])
		}
		inv, slots := f.Ainv()
		k := len(slots)
		var res float64
		for i := 0; i < k; i++ {
			for j := 0; j < k; j++ {
				if inv[i*k+j] != inv[j*k+i] {
					t.Fatalf("%v: A⁻¹ not symmetric at (%d, %d)", c, i, j)
				}
				var s float64
				for l := 0; l < k; l++ {
					s += inv[i*k+l] * ref.A.At(int(slots[l]), int(slots[j]))
				}
				if i == j {
					s--
				}
				res = max(res, math.Abs(s))
			}
		}
		bound := 1e-12
		if c.lossName == "squared" && c.spread > 0 {
			bound = 1e-7
		}
		if res > bound || f.Clamps() != 0 || f.Skips() != 0 {
			t.Errorf("%v: ‖A⁻¹A − I‖_max = %.3g, %d clamps, %d skips", c, res, f.Clamps(), f.Skips())
		}
		t.Logf("%v: ‖A⁻¹A − I‖_max = %.2e after %d steps", c, res, T)
	}
}

// TestFullSaveLoadContinue: save → load → continue equals uninterrupted
// training bit for bit, at the start and mid-stream.
func TestFullSaveLoadContinue(t *testing.T) {
	for _, diag := range []bool{false, true} {
		for _, at := range []int{0, 700} {
			c := fsetup{d: 100, s: 10, lossName: "logistic", alpha: 1, C: 2, diag: diag, seed: 71}
			data := withWeights(fStream(c, 1500), 3)
			a := newFull(t, c)
			for i := range data[:at] {
				a.Learn(&data[i])
			}
			var buf bytes.Buffer
			if err := model.Encode(&buf, nil, a.Save); err != nil {
				t.Fatal(err)
			}
			_, r, err := model.Parse(buf.Bytes())
			if err != nil {
				t.Fatal(err)
			}
			b, err := son.LoadFull(r, son.Config{Bits: bitsFor(c.d), C: c.C, Sigma: fSigma(c), Eta0: 1, Diag: diag}, c.alpha, dense.Loss(c.lossName))
			if err != nil {
				t.Fatal(err)
			}
			for i := range data[at:] {
				ex := &data[at+i]
				if pa, pb := a.Predict(ex), b.Predict(ex); pa != pb {
					t.Fatalf("diag=%v at=%d example %d: predict %v vs %v", diag, at, i, pa, pb)
				}
				if pa, pb := a.Learn(ex), b.Learn(ex); pa != pb {
					t.Fatalf("diag=%v at=%d example %d: learn %v vs %v", diag, at, i, pa, pb)
				}
			}
			// A truncated body is reported, not loaded.
			raw := buf.Bytes()
			if _, r, err := model.Parse(raw); err == nil {
				r.Float64()
				if _, err := son.LoadFull(r, son.Config{Bits: bitsFor(c.d), C: c.C, Eta0: 1}, c.alpha, dense.Loss(c.lossName)); err == nil {
					t.Errorf("a misaligned body loaded")
				}
			}
		}
	}
}

func TestFullConfigErrors(t *testing.T) {
	l := loss.Logistic{}
	// The cap is on the slots kept (TestFullSlotCap), not on the hash
	// space: any -b the table supports is accepted.
	for _, c := range []struct {
		bits uint
		ok   bool
	}{{0, false}, {1, true}, {13, true}, {18, true}, {sparse.MaxBits, true}, {sparse.MaxBits + 1, false}} {
		_, err := son.NewFull(son.Config{Bits: c.bits, C: 1, Eta0: 1}, 1, l)
		if (err == nil) != c.ok || err != nil && !strings.Contains(err.Error(), "Config.Bits") {
			t.Errorf("-b %d: %v", c.bits, err)
		}
	}
	for _, alpha := range []float64{0, -1, math.Inf(1), math.NaN()} {
		if _, err := son.NewFull(son.Config{Bits: 6, C: 1, Eta0: 1}, alpha, l); err == nil {
			t.Errorf("α = %v accepted", alpha)
		}
	}
	if _, err := son.NewFull(son.Config{Bits: 6, C: 0, Eta0: 1}, 1, l); err == nil {
		t.Error("C = 0 accepted")
	}
	if _, err := son.NewFull(son.Config{Bits: 12, C: math.Inf(1), Eta0: 1}, 1, l); err != nil {
		t.Errorf("-b 12, C = +Inf: %v", err)
	}
}

// TestFullWeightsAndPredict: Weights reports the slots seen in training in
// first-seen order (Predict creates none), and Predict returns what Learn
// predicts next.
func TestFullWeightsAndPredict(t *testing.T) {
	c := fsetup{d: 200, s: 6, lossName: "squared", alpha: 1, C: 0.5, diag: true, seed: 81}
	data := fStream(c, 60)
	f := newFull(t, c)
	empty := sparse.Example{Weight: 1, HasLabel: true, Label: 1, Initial: 0.25}
	if p := f.Learn(&empty); p != 0.25 || f.Predict(&empty) != 0.25 {
		t.Fatalf("empty example: %v", p)
	}
	var order []uint32
	seen := map[uint32]bool{}
	for i := range data {
		probe := data[(i+7)%len(data)]
		before := f.Seen()
		f.Predict(&probe)
		if f.Seen() != before {
			t.Fatal("Predict created state")
		}
		p := f.Predict(&data[i])
		if l := f.Learn(&data[i]); dense.Rel(p, l) > 1e-12 {
			t.Fatalf("step %d: Predict %v, Learn %v", i, p, l)
		}
		for _, j := range data[i].Idx {
			if !seen[j] {
				seen[j] = true
				order = append(order, j)
			}
		}
	}
	var got []uint32
	f.Weights(func(slot uint32, w float64) { got = append(got, slot) })
	if fmt.Sprint(got) != fmt.Sprint(order) {
		t.Fatalf("weights order %v, first-seen order %v", got, order)
	}
}

// TestFullExtremeInputs: huge/tiny values, weights and labels keep the
// model finite.
func TestFullExtremeInputs(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, lossName := range []string{"squared", "logistic"} {
		c := fsetup{d: 40, s: 6, lossName: lossName, alpha: 0.5, C: 1e6, seed: 91}
		f := newFull(t, c)
		for i := 0; i < 3000; i++ {
			var ex sparse.Example
			ex.Weight, ex.HasLabel = 1, true
			if i%7 == 0 {
				ex.Weight = math.Pow(10, float64(rng.IntN(13)-6))
			}
			ex.Label = rng.NormFloat64() * math.Pow(10, float64(rng.IntN(7)))
			if lossName == "logistic" {
				ex.Label = float64(2*rng.IntN(2) - 1)
			}
			for _, j := range rng.Perm(c.d)[:c.s] {
				ex.Idx = append(ex.Idx, uint32(j))
				ex.Val = append(ex.Val, rng.NormFloat64()*math.Pow(10, float64(rng.IntN(121)-60)))
			}
			if p := f.Learn(&ex); math.IsNaN(p) || math.IsInf(p, 0) {
				t.Fatalf("%s step %d: prediction %v", lossName, i, p)
			}
		}
		f.Weights(func(slot uint32, w float64) {
			if math.IsNaN(w) || math.IsInf(w, 0) {
				t.Fatalf("%s: w[%d] = %v", lossName, slot, w)
			}
		})
		inv, _ := f.Ainv()
		for _, v := range inv {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				t.Fatalf("%s: non-finite A⁻¹", lossName)
			}
		}
		t.Logf("%s: %d clamps, %d skipped A⁻¹ updates", lossName, f.Clamps(), f.Skips())
	}
}

// BenchmarkFull: ns/example of full ONS at Bits 8, 10, 12 on the
// news20-like stream (logistic, C = 1, α = 1). The cost is O(k·s + k²)
// with k the slots seen, so the warm-up makes k = d = 2^Bits at once (a
// zero-weight example holding every slot creates their state without
// learning), then learns 64 examples; the timed loop cycles through 512
// further ones.
// BenchmarkFull: one example at k slots kept; at bits=18 the first 4096
// slots are kept and most of the example's features are refused.
func BenchmarkFull(b *testing.B) {
	for _, bits := range []uint{8, 10, 12, 18} {
		b.Run(fmt.Sprintf("bits=%d", bits), func(b *testing.B) {
			data := dense.NewsLike(576, 100000, 130, bits, 1)
			f, err := son.NewFull(son.Config{Bits: bits, C: 1, Eta0: 1}, 1, loss.Logistic{})
			if err != nil {
				b.Fatal(err)
			}
			all := sparse.Example{Weight: 0, HasLabel: true, Label: 1}
			for j := range uint32(min(1<<bits, son.MaxFullSlots)) {
				all.Idx = append(all.Idx, j)
				all.Val = append(all.Val, 1)
			}
			f.Learn(&all)
			for i := range data[:64] {
				f.Learn(&data[i])
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				f.Learn(&data[64+i%512])
			}
			b.StopTimer()
			b.ReportMetric(float64(f.Seen()), "slots")
			b.ReportMetric(float64(f.Ignored().Occurrences)/float64(b.N+64), "ignored/example")
		})
	}
}
