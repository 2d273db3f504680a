package son

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/sparseson/sparseson/internal/linalg"
	"github.com/sparseson/sparseson/loss"
	"github.com/sparseson/sparseson/oja"
	"github.com/sparseson/sparseson/sparse"
)

// TestGatherZAddTo: gatherZ, the column scatter (linalg.ScatterCols
// over the Z columns of the rows, which linalg.AbsorbScatter's tests check
// the fused absorb against) and the unrolled addTo give the
// bits of the plain loops they replace (z[i] += x_k·Z_{k,i} over k in
// order, Z_{k,i} += (c·x_k)·δ_i, y[i] += a·x[i]) for every length p of a
// Z column up to 19 (blocks of 8 and every tail of 1–7 columns), with
// values spanning many magnitudes and signs so that any change in the
// order of the sums would show.
func TestGatherZAddTo(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	val := func() float64 { return (rng.Float64() - 0.5) * math.Pow(10, float64(rng.IntN(16)-8)) }
	for p := 0; p <= 19; p++ {
		for _, feats := range []int{0, 1, 7, 140} {
			stride := p + 3
			rows := make([]float64, (feats+5)*stride)
			for i := range rows {
				rows[i] = val()
			}
			offs := make([]int, feats)
			xt := make([]float64, feats)
			for k := range offs {
				offs[k] = rng.IntN(feats+5) * stride
				xt[k] = val()
			}
			want := make([]float64, p)
			for k, o := range offs {
				for i := range want {
					want[i] += xt[k] * rows[o+1+i]
				}
			}
			got := make([]float64, p)
			for i := range got {
				got[i] = math.NaN() // gatherZ must write every entry
			}
			gatherZ(got, rows, offs, xt)
			for i := range want {
				if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
					t.Fatalf("p=%d features=%d: gatherZ z[%d] = %v, the loop %v", p, feats, i, got[i], want[i])
				}
			}
			// Distinct rows, as an example's are.
			for k := range offs {
				offs[k] = k * stride
			}
			delta := make([]float64, p)
			for i := range delta {
				delta[i] = val()
			}
			c := val()
			wantRows := append([]float64(nil), rows...)
			for k, o := range offs {
				for i, d := range delta {
					wantRows[o+1+i] += c * xt[k] * d
				}
			}
			if len(offs) > 0 {
				linalg.ScatterCols(rows[1:], offs, xt, c, delta)
			}
			for j := range rows {
				if math.Float64bits(rows[j]) != math.Float64bits(wantRows[j]) {
					t.Fatalf("p=%d features=%d: ScatterCols rows[%d] = %v, the loop %v", p, feats, j, rows[j], wantRows[j])
				}
			}
		}
		y, x := make([]float64, p), make([]float64, p+2)
		for i := range y {
			y[i] = val()
		}
		for i := range x {
			x[i] = val()
		}
		a := val()
		want := append([]float64(nil), y...)
		for i := range want {
			want[i] += a * x[i]
		}
		addTo(y, a, x)
		for i := range want {
			if math.Float64bits(y[i]) != math.Float64bits(want[i]) {
				t.Fatalf("p=%d: addTo y[%d] = %v, the loop %v", p, i, y[i], want[i])
			}
		}
	}
}

// TestRowOf: the multiply that replaced the stamp check's division gives
// ⌊o/stride⌋ for every stride a learner can have (1 + p_max, plus 2 with
// pre-scaling, plus the auxiliary columns) and for offsets up to far
// beyond any table (2⁴⁰ rows), the table's first and last rows included,
// at a row's start and inside it.
func TestRowOf(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 4))
	for stride := 1; stride <= 260; stride++ {
		s := &Learner{stride: stride, rowMul: linalg.RowMultiplier(stride)}
		rows := []int{0, 1, 2, stride - 1, 1 << 20, 1<<40 - 1}
		for range 200 {
			rows = append(rows, rng.IntN(1<<40))
		}
		for _, r := range rows {
			// A row's start and every offset inside it: the core's
			// offsets point at w̄_j, after the row's leading columns.
			for _, c := range []int{0, min(1, stride-1), stride / 2, stride - 1} {
				if got := s.rowOf(r*stride + c); got != r {
					t.Fatalf("stride %d: rowOf(%d) = %d, want %d", stride, r*stride+c, got, r)
				}
			}
		}
	}
}

// TestPredictZx: a prediction's z = Z·x̃ (resolve, then zx over the seen
// features through gatherZ) has the bits of one axpy per seen feature in
// order, the loop it replaced, with unseen features among the seen ones;
// w̄·x̃ and Σw̄² likewise.
func TestPredictZx(t *testing.T) {
	for _, diag := range []bool{false, true} {
		sk, err := oja.New(oja.Config{M: 6, Alpha: 1, Rate: 1})
		if err != nil {
			t.Fatal(err)
		}
		s, err := New(Config{Bits: 10, C: math.Inf(1), Eta0: 1, Diag: diag}, loss.Logistic{}, sk)
		if err != nil {
			t.Fatal(err)
		}
		rng := rand.New(rand.NewPCG(5, 6))
		ex := func(lo, hi int) *sparse.Example {
			e := &sparse.Example{Label: float64(2*rng.IntN(2) - 1), Weight: 1}
			for _, j := range rng.Perm(hi - lo)[:20] {
				e.Idx = append(e.Idx, uint32(lo+j))
				e.Val = append(e.Val, rng.NormFloat64()*math.Pow(10, float64(rng.IntN(6)-3)))
			}
			return e
		}
		for range 300 {
			s.Learn(ex(0, 200))
		}
		p := len(s.st.Z)
		if p == 0 {
			t.Fatal("the sketch has no rows; the test does not exercise z")
		}
		for range 50 {
			e := ex(100, 300) // about half the features unseen
			s.resolve(e)
			wx, wsq := s.zx(p)
			want := make([]float64, p)
			var wantWx, wantSq float64
			unseen := 0
			for k, o := range s.offs {
				if o < 0 {
					unseen++
					continue
				}
				x := s.xt[k]
				w := s.tab.Rows[o]
				wantWx = float64(wantWx + float64(w*x))
				wantSq = float64(wantSq + float64(w*w))
				for i := range want {
					want[i] = float64(want[i] + float64(x*s.tab.Rows[o+1+i]))
				}
			}
			if unseen == 0 || unseen == len(s.offs) {
				t.Fatalf("%d of %d features unseen: the test needs both kinds", unseen, len(s.offs))
			}
			for i := range want {
				if math.Float64bits(s.z[i]) != math.Float64bits(want[i]) {
					t.Fatalf("diag=%v: z[%d] = %v, the axpy loop %v", diag, i, s.z[i], want[i])
				}
			}
			if math.Float64bits(wx) != math.Float64bits(wantWx) || math.Float64bits(wsq) != math.Float64bits(wantSq) {
				t.Fatalf("diag=%v: w̄·x̃, Σw̄² = %v, %v; the loop %v, %v", diag, wx, wsq, wantWx, wantSq)
			}
		}
	}
}
