package son_test

import (
	"io"
	"math"
	"testing"

	"github.com/sparseson/sparseson/internal/dense"
	"github.com/sparseson/sparseson/loss"
	"github.com/sparseson/sparseson/model"
	. "github.com/sparseson/sparseson/son"
	"github.com/sparseson/sparseson/sparse"
)

// gramSketch is a minimal GramSketch for testing the deferred steps on
// their own: it appends every ĝ as a row of Z and, when Z is full, maps it
// to half as many rows by a fixed well-conditioned T (a compaction). K = ZZᵀ
// is kept exactly (bordered on append, T·K·Tᵀ from the core on transform);
// M = 0.1·I stands in for the sketch's SᵀHS.
type gramSketch struct {
	pmax, p int
	K       []float64
	T       []float64
}

func newGramSketch(pmax int) *gramSketch {
	g := &gramSketch{pmax: pmax, K: make([]float64, pmax*pmax), T: make([]float64, pmax*pmax)}
	return g
}

func (g *gramSketch) Name() string                  { return "gram-test" }
func (g *gramSketch) MaxRows() int                  { return g.pmax }
func (g *gramSketch) Rows() int                     { return g.p }
func (g *gramSketch) Alpha() float64                { return 1 }
func (g *gramSketch) SetAlpha(float64)              {}
func (g *gramSketch) Captured() float64             { return 0 }
func (g *gramSketch) Rank() int                     { return 0 }
func (g *gramSketch) ZNorm2() float64               { return frobSq(g.K) }
func (g *gramSketch) MulPinv(dst, z []float64)      {}
func (g *gramSketch) MulProj(dst, z []float64)      {}
func (g *gramSketch) Save(w *model.Writer)          {}
func (g *gramSketch) Load(r *model.Reader) error    { return nil }
func (g *gramSketch) Report(w io.Writer, _ float64) {}
func (g *gramSketch) Gram() ([]float64, int)        { return g.K, g.pmax }

func frobSq(a []float64) (v float64) {
	for _, x := range a {
		v += x * x
	}
	return math.Sqrt(v)
}

func (g *gramSketch) MulM(dst, z []float64) {
	dst = dst[:len(z)]
	for i, v := range z {
		dst[i] = 0.1 * v
	}
}

func (g *gramSketch) Update(st *sparse.Step, h sparse.Host) {
	p, pm := g.p, g.pmax
	if p == pm {
		q := pm / 2
		T := g.T[:q*p]
		for i := 0; i < q; i++ {
			for j := 0; j < p; j++ {
				T[i*p+j] = 0
				if j == i || j == i+q {
					T[i*p+j] = 1 / math.Sqrt2
				}
				if j == (i+1)%p {
					T[i*p+j] += 0.25
				}
			}
		}
		gram := make([]float64, q*q)
		h.Transform(T, q, gram)
		clear(g.K)
		for i := 0; i < q; i++ {
			copy(g.K[i*pm:i*pm+q], gram[i*q:i*q+q])
		}
		g.p, p = q, q
	}
	a := st.Z[:p]
	h.Append()
	for i := 0; i < p; i++ {
		v := st.C * a[i]
		g.K[i*pm+p], g.K[p*pm+i] = v, v
	}
	g.K[p*pm+p] = st.C * st.C * st.N
	g.p++
}

func newLazyTest(t testing.TB, ring int) *Learner {
	t.Helper()
	s, err := New(Config{Bits: 12, C: math.Inf(1), Eta0: 1, LazyRing: ring}, loss.Logistic{}, newGramSketch(8))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestLazyEqualsEager: with a sketch that compacts every few examples,
// deferred folds and transforms (any ring size) give eager's predictions
// and weights on a wide stream, and exercise refreshes and flushes.
func TestLazyEqualsEager(t *testing.T) {
	data := dense.Problem{D: 3000, S: 12, T: 1500, Loss: "logistic", Seed: 5}.Examples()
	for _, ring := range []int{0, 1, 2, 5} {
		a, b := newLazyTest(t, -1), newLazyTest(t, ring)
		var worst float64
		for i := range data {
			pa, pb := a.Learn(&data[i]), b.Learn(&data[i])
			worst = math.Max(worst, dense.Rel(pa, pb))
		}
		wa := map[uint32]float64{}
		a.Weights(func(k uint32, w float64) { wa[k] = w })
		var ww float64
		b.Weights(func(k uint32, w float64) { ww = math.Max(ww, math.Abs(w-wa[k])) })
		steps, flushes, refreshes := b.Deferred()
		t.Logf("ring %d: rel %.1e, weights %.1e; steps %d, flushes %d, refreshes %d", ring, worst, ww, steps, flushes, refreshes)
		if worst > 1e-12 || ww > 1e-12 {
			t.Errorf("ring %d: deferred differs from eager by %.2e (predictions), %.2e (weights)", ring, worst, ww)
		}
		if steps == 0 || refreshes == 0 || (ring == 1 && flushes == 0) {
			t.Errorf("ring %d: deferral not exercised (steps %d, flushes %d, refreshes %d)", ring, steps, flushes, refreshes)
		}
	}
}

// TestLazyResync: when the incremental ‖w̄‖² or y = Z·w̄ stop being finite,
// a fold recomputes both exactly.
func TestLazyResync(t *testing.T) {
	data := dense.Problem{D: 3000, S: 12, T: 300, Loss: "logistic", Seed: 6}.Examples()
	s := newLazyTest(t, 0)
	for i := range data {
		s.Learn(&data[i])
	}
	var want float64
	s.Weights(func(_ uint32, w float64) { want += w * w })
	PoisonLazyY(s)
	s.Fold()
	wsq, exactSq, y, exact := LazyNorms(s)
	if math.Abs(wsq-want) > 1e-12*want || math.Abs(exactSq-want) > 1e-12*want {
		t.Errorf("‖w‖² after resync %v (rows: %v), want %v", wsq, exactSq, want)
	}
	for i := range y {
		if math.Abs(y[i]-exact[i]) > 1e-12*(1+math.Abs(exact[i])) {
			t.Errorf("y[%d] = %v after resync, want %v", i, y[i], exact[i])
		}
	}
}

// BenchmarkLazy: one op is one example of a wide stream (d = 100k, 130
// nonzeros, NewsLike) through SON with a sketch that compacts every 4
// examples, folds and compactions applied eagerly or deferred.
func BenchmarkLazy(b *testing.B) {
	data := dense.NewsLike(4000, 100000, 130, 18, 1)
	for _, v := range []struct {
		name string
		ring int
	}{{"eager", -1}, {"deferred", 0}} {
		b.Run(v.name, func(b *testing.B) {
			s, err := New(Config{Bits: 18, C: math.Inf(1), Eta0: 1, LazyRing: v.ring}, loss.Logistic{}, newGramSketch(8))
			if err != nil {
				b.Fatal(err)
			}
			dense.Steady(b, s, data)
		})
	}
}
