package fd

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/sparseson/sparseson/internal/linalg"
	"github.com/sparseson/sparseson/sparse"
)

// sketchRows returns the rows of S = C·Z of a sketch driven by a denseHost.
func sketchRows(sk *Sketch, Z [][]float64, d int) [][]float64 {
	st := sk.State()
	S := make([][]float64, st.Q)
	for i := range S {
		S[i] = make([]float64, d)
		for k := 0; k < st.P; k++ {
			if c := st.C[i*st.P+k]; c != 0 {
				for j := range S[i] {
					S[i][j] += c * Z[k][j]
				}
			}
		}
	}
	return S
}

// mergeDense merges sketches driven by dense hosts, as the SON core does
// without pre-scaling: their rows stacked (Basis · Z), the Gram matrix of
// the stack, and Apply writing the merged Z into a new dense host.
func mergeDense(t *testing.T, cfg Config, parts []*Sketch, hosts []*denseHost, d int) (*Sketch, *denseHost) {
	t.Helper()
	var stack [][]float64
	rows := []int{0}
	var sks []sparse.Sketch
	for i, p := range parts {
		C, q := p.Basis()
		pz := p.Rows()
		for a := 0; a < q; a++ {
			r := make([]float64, d)
			for k := 0; k < pz; k++ {
				for j := range r {
					r[j] += C[a*pz+k] * hosts[i].Z[k][j]
				}
			}
			stack = append(stack, r)
		}
		rows = append(rows, len(stack))
		sks = append(sks, p)
	}
	n := len(stack)
	G := make([]float64, n*n)
	for a := range stack {
		for b := range stack {
			G[a*n+b] = dotv(stack[a], stack[b])
		}
	}
	out, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	h := newDenseHost(d, out.MaxRows())
	calls := 0
	apply := func(T []float64, r int) []float64 {
		calls++
		h.Z = make([][]float64, r)
		for a := range h.Z {
			h.Z[a] = make([]float64, d)
			for b := 0; b < n; b++ {
				for j := range h.Z[a] {
					h.Z[a][j] += T[a*n+b] * stack[b][j]
				}
			}
		}
		gram := make([]float64, r*r)
		for a := 0; a < r; a++ {
			for b := 0; b < r; b++ {
				gram[a*r+b] = dotv(h.Z[a], h.Z[b])
			}
		}
		return gram
	}
	if err := out.Merge(&sparse.SketchMerge{Parts: sks, Rows: rows, Gram: G, N: n, Apply: apply}); err != nil {
		t.Fatal(err)
	}
	if calls != 1 || out.Rows() != len(h.Z) {
		t.Fatalf("Apply called %d times; sketch has %d rows, Z %d", calls, out.Rows(), len(h.Z))
	}
	return out, h
}

// TestMergeBound is Luo et al.'s (JMLR 2019) mergeability (Alg. 7 / Lemma 5 for a tree of
// shrinks) on random shards: with A every shard's rows and B the merge of
// the shards' FD sketches, for every k < m,
//
//	0 ⪯ AᵀA − BᵀB,  ‖AᵀA − BᵀB‖₂ ≤ Σ_{i>k}σ_i²/(m−k),  Σρ ≤ the same,
//
// and for RFD₀ (α₀ = 0) α = ½Σρ over every shrink of every shard and the
// merge, with ‖AᵀA − BᵀB − αI‖₂ ≤ Σ_{i>k}σ_i²/(2(m−k)) (Theorem 3). The
// error/bound ratios are logged; a merge that skipped the shrink (or kept
// too many rows) fails the row count, and one that lost the shards' α
// or discarded more than FD allows fails the bounds.
func TestMergeBound(t *testing.T) {
	type tc struct {
		d, m, s, shards, T int
		robust, fast       bool
	}
	var cases []tc
	for _, fast := range []bool{false, true} {
		for _, robust := range []bool{false, true} {
			cases = append(cases,
				tc{d: 30, m: 4, s: 6, shards: 3, T: 150, robust: robust, fast: fast},
				tc{d: 40, m: 8, s: 10, shards: 4, T: 120, robust: robust, fast: fast},
				tc{d: 25, m: 6, s: 25, shards: 2, T: 200, robust: robust, fast: fast},
				tc{d: 60, m: 10, s: 4, shards: 5, T: 60, robust: robust, fast: fast})
		}
	}
	for ci, c := range cases {
		name := fmt.Sprintf("d%d_m%d_s%d_k%d_robust%v_fast%v", c.d, c.m, c.s, c.shards, c.robust, c.fast)
		t.Run(name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(ci), 11))
			cfg := Config{M: c.m, Alpha: 1, Robust: c.robust, Fast: c.fast}
			if c.robust {
				cfg.Alpha = 0
			}
			var A [][]float64
			var parts []*Sketch
			var hosts []*denseHost
			for k := 0; k < c.shards; k++ {
				sk, err := New(cfg)
				if err != nil {
					t.Fatal(err)
				}
				h := newDenseHost(c.d, sk.MaxRows())
				for _, g := range decayingStream(rng, c.T, c.d, c.s) {
					A = append(A, g)
					h.feed(sk, 1, g)
				}
				parts, hosts = append(parts, sk), append(hosts, h)
			}
			out, h := mergeDense(t, cfg, parts, hosts, c.d)
			if q := out.State().Q; q > c.m-1 {
				t.Fatalf("merged sketch keeps %d rows, FD keeps at most m−1 = %d", q, c.m-1)
			}
			ata := gramT(A, c.d)
			sv := symEigen(ata)
			tail := func(k int) (v float64) {
				for i := 0; i < c.d-k; i++ {
					v += math.Max(sv[i], 0)
				}
				return v
			}
			diff := sub(ata, gramT(sketchRows(out, h.Z, c.d), c.d))
			scale := sv[c.d-1]
			if ev := symEigen(diff); ev[0] < -1e-11*scale {
				t.Fatalf("AᵀA − BᵀB has eigenvalue %.3g < 0", ev[0])
			}
			var sumRho float64
			for _, p := range parts {
				sumRho += p.SumRho()
			}
			if out.SumRho() < sumRho {
				t.Fatalf("Σρ of the merge %.6g < the shards' %.6g", out.SumRho(), sumRho)
			}
			if c.robust {
				if al := out.Alpha(); math.Abs(al-out.SumRho()/2) > 1e-12*math.Max(al, 1) {
					t.Fatalf("merged RFD₀ α = %v, ½Σρ = %v", al, out.SumRho()/2)
				}
				for j := range diff {
					diff[j][j] -= out.Alpha()
				}
			}
			ev := symEigen(diff)
			nrm := math.Max(math.Abs(ev[0]), math.Abs(ev[c.d-1]))
			var worst float64
			for k := 0; k < c.m; k++ {
				b := tail(k) / float64(c.m-k)
				if c.robust {
					b /= 2
				}
				worst = max(worst, nrm/b)
				if nrm > b*(1+1e-10) {
					t.Fatalf("k %d: merged sketch error %.6g > bound %.6g", k, nrm, b)
				}
				if !c.robust && out.SumRho() > tail(k)/float64(c.m-k)*(1+1e-10) {
					t.Fatalf("k %d: Σρ = %.6g > %.6g", k, out.SumRho(), tail(k)/float64(c.m-k))
				}
			}
			t.Logf("max error/bound %.3f (Σρ shards %.4g, merge %.4g)", worst, sumRho, out.SumRho()-sumRho)
		})
	}
}

// TestMergeOneAndOrder: merging one sketch gives the same SᵀS (and α, and
// the buffer's fill), and merging shards in another order gives the same
// SᵀS to rounding.
func TestMergeOneAndOrder(t *testing.T) {
	for _, cfg := range []Config{
		{M: 5, Alpha: 1}, {M: 5, Robust: true}, {M: 5, Alpha: 0.5, Robust: true},
		{M: 4, Alpha: 1, Fast: true}, {M: 4, Robust: true, Fast: true},
	} {
		t.Run(fmt.Sprintf("robust%v_fast%v_alpha%v", cfg.Robust, cfg.Fast, cfg.Alpha), func(t *testing.T) {
			d := 30
			rng := rand.New(rand.NewPCG(3, uint64(cfg.M)))
			var parts []*Sketch
			var hosts []*denseHost
			for k, T := range []int{97, 3, 41} { // one shard still in its warm-up
				sk, _ := New(cfg)
				h := newDenseHost(d, sk.MaxRows())
				for _, g := range randomStream(rng, T, d, 5, 1) {
					h.feed(sk, 1, g)
				}
				_ = k
				parts, hosts = append(parts, sk), append(hosts, h)
			}
			for i, p := range parts {
				one, h := mergeDense(t, cfg, []*Sketch{p}, []*denseHost{hosts[i]}, d)
				a, b := sts(one, h.Z, d), sts(p, hosts[i].Z, d)
				if sc, df := maxAbsDiff(a, b); df > 1e-12*sc {
					t.Fatalf("shard %d: merge of one: ‖ΔSᵀS‖_max/‖SᵀS‖ = %.3g", i, df/sc)
				}
				if math.Abs(one.Alpha()-p.Alpha()) > 1e-14*math.Max(1, p.Alpha()) || one.nb != p.nb || one.SumRho() != p.SumRho() {
					t.Fatalf("shard %d: merge of one: α %v nb %d Σρ %v, shard α %v nb %d Σρ %v", i, one.Alpha(), one.nb, one.SumRho(), p.Alpha(), p.nb, p.SumRho())
				}
			}
			ab, h1 := mergeDense(t, cfg, parts, hosts, d)
			rev := []*Sketch{parts[2], parts[0], parts[1]}
			revH := []*denseHost{hosts[2], hosts[0], hosts[1]}
			ba, h2 := mergeDense(t, cfg, rev, revH, d)
			if sc, df := maxAbsDiff(sts(ab, h1.Z, d), sts(ba, h2.Z, d)); df > 1e-11*sc {
				t.Fatalf("merge order: ‖ΔSᵀS‖_max/‖SᵀS‖ = %.3g", df/sc)
			}
			if math.Abs(ab.Alpha()-ba.Alpha()) > 1e-12*math.Max(1, ab.Alpha()) {
				t.Fatalf("merge order: α %v against %v", ab.Alpha(), ba.Alpha())
			}
			// The merged sketch keeps its invariants and sketches on.
			st := ab.State()
			for i := 0; i < st.Q; i++ {
				if !(st.E[i] > 0) || (i > 0 && st.E[i] > st.E[i-1]*(1+1e-12)) {
					t.Fatalf("E not positive and sorted: %v", st.E)
				}
			}
			for _, g := range randomStream(rng, 50, d, 5, 1) {
				h1.feed(ab, 1, g)
			}
			if !allFiniteSlice(ab.State().C) {
				t.Fatal("merged sketch went non-finite when trained on")
			}
		})
	}
}

func allFiniteSlice(v []float64) bool {
	for _, x := range v {
		if !linalg.IsFinite(x) {
			return false
		}
	}
	return true
}

// TestMergeRefuses checks that sketches of another configuration are
// refused.
func TestMergeRefuses(t *testing.T) {
	a, _ := New(Config{M: 5, Alpha: 1})
	b, _ := New(Config{M: 6, Alpha: 1})
	out, _ := New(Config{M: 5, Alpha: 1})
	err := out.Merge(&sparse.SketchMerge{Parts: []sparse.Sketch{a, b}, Rows: []int{0, 0, 0}, Apply: func([]float64, int) []float64 { return nil }})
	if err == nil {
		t.Fatal("merged sketches of different sizes")
	}
}
