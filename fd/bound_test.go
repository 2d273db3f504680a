package fd

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/sparseson/sparseson/internal/dense"
	"gonum.org/v1/gonum/mat"
)

// symEigen returns the eigenvalues (ascending) of the symmetric d×d a.
func symEigen(a [][]float64) []float64 {
	d := len(a)
	S := mat.NewSymDense(d, nil)
	for i := 0; i < d; i++ {
		for j := i; j < d; j++ {
			S.SetSym(i, j, (a[i][j]+a[j][i])/2)
		}
	}
	var es mat.EigenSym
	if !es.Factorize(S, false) {
		panic("eigen failed")
	}
	return es.Values(nil)
}

// decayingStream draws T rows of d with s nonzeros and a decaying column
// scale (so that the tail Σ_{i>k}σ_i² is informative for every k).
func decayingStream(rng *rand.Rand, T, d, s int) [][]float64 {
	scale := make([]float64, d)
	for j := range scale {
		scale[j] = math.Pow(1+float64(j), -0.8)
	}
	out := make([][]float64, T)
	for t := range out {
		g := make([]float64, d)
		for _, j := range rng.Perm(d)[:s] {
			g[j] = scale[j] * rng.NormFloat64()
		}
		out[t] = g
	}
	return out
}

// TestBounds checks the sketch guarantees of docs/algorithms.md §9 D on random
// matrices A (rows ĝ), for every k < m, for FD and RFD, per step and with
// the doubled buffer:
//
//   - FD (Luo et al. (JMLR 2019), eq. 1, Lemma 4 (16)–(17); Lemma 5 for the doubled
//     buffer): 0 ⪯ AᵀA − SᵀS, ‖AᵀA − SᵀS‖₂ ≤ Σ_{i>k}σ_i²/(m−k) and
//     Σ_t λ_m ≤ Σ_{i>k}σ_i²/(m−k);
//   - RFD with α₀ = 0 (Luo et al. (JMLR 2019), Theorem 3; Corollary 2 for the doubled
//     buffer): ‖AᵀA − SᵀS − αI‖₂ ≤ Σ_{i>k}σ_i²/(2(m−k)) and α = ½Σλ_m;
//   - RFD with α₀ > 0 is never worse conditioned than FD with the same α₀,
//     nor than AᵀA + α₀I (Luo et al. (JMLR 2019), Theorem 4).
func TestBounds(t *testing.T) {
	for _, fast := range []bool{false, true} {
		for ci, dm := range [][3]int{{30, 4, 6}, {40, 8, 10}, {25, 6, 25}, {60, 10, 4}} {
			d, m, s := dm[0], dm[1], dm[2]
			name := fmt.Sprintf("fast%v_d%d_m%d_s%d", fast, d, m, s)
			t.Run(name, func(t *testing.T) {
				rng := rand.New(rand.NewPCG(uint64(ci), 3))
				rows := decayingStream(rng, 400, d, s)
				fdS, _ := New(Config{M: m, Alpha: 1, Fast: fast})
				rfdS, _ := New(Config{M: m, Robust: true, Fast: fast})
				rfdA, _ := New(Config{M: m, Alpha: 0.5, Robust: true, Fast: fast})
				fdA, _ := New(Config{M: m, Alpha: 0.5, Fast: fast})
				hs := []*denseHost{newDenseHost(d, fdS.MaxRows()), newDenseHost(d, rfdS.MaxRows()), newDenseHost(d, rfdA.MaxRows()), newDenseHost(d, fdA.MaxRows())}
				sks := []*Sketch{fdS, rfdS, rfdA, fdA}
				var A [][]float64
				for step, g := range rows {
					A = append(A, g)
					for i, sk := range sks {
						hs[i].feed(sk, 1, g)
					}
					if step%50 != 49 {
						continue
					}
					ata := gramT(A, d)
					sv := symEigen(ata) // ascending: σ_i² of A
					tail := func(k int) (v float64) {
						for i := 0; i < d-k; i++ {
							v += math.Max(sv[i], 0)
						}
						return v
					}
					scale := sv[d-1]
					// FD.
					diff := sub(ata, sts(fdS, hs[0].Z, d))
					ev := symEigen(diff)
					if ev[0] < -1e-12*scale {
						t.Fatalf("step %d: AᵀA − SᵀS has eigenvalue %.3g < 0", step, ev[0])
					}
					nrm := math.Max(math.Abs(ev[0]), math.Abs(ev[d-1]))
					var worst float64
					for k := 0; k < m; k++ {
						b := tail(k) / float64(m-k)
						worst = max(worst, nrm/b)
						if nrm > b*(1+1e-12) {
							t.Fatalf("step %d k %d: ‖AᵀA − SᵀS‖ = %.6g > %.6g", step, k, nrm, b)
						}
						if fdS.SumRho() > b*(1+1e-12) {
							t.Fatalf("step %d k %d: Σλ_m = %.6g > %.6g", step, k, fdS.SumRho(), b)
						}
					}
					// RFD₀.
					al := rfdS.Alpha()
					if math.Abs(al-rfdS.SumRho()/2) > 1e-12*al {
						t.Fatalf("step %d: α = %v, ½Σλ_m = %v", step, al, rfdS.SumRho()/2)
					}
					diff = sub(ata, sts(rfdS, hs[1].Z, d))
					for j := range diff {
						diff[j][j] -= al
					}
					ev = symEigen(diff)
					nrm = math.Max(math.Abs(ev[0]), math.Abs(ev[d-1]))
					var worstR float64
					for k := 0; k < m; k++ {
						b := tail(k) / (2 * float64(m-k))
						worstR = max(worstR, nrm/b)
						if nrm > b*(1+1e-12) {
							t.Fatalf("step %d k %d: ‖AᵀA − SᵀS − αI‖ = %.6g > %.6g", step, k, nrm, b)
						}
					}
					// Theorem 4 (α₀ = 0.5): κ(SᵀS + αI) ≤ κ(SᵀS + α₀I), κ(AᵀA + α₀I).
					cond := func(a [][]float64, al float64) float64 {
						e := symEigen(a)
						return (e[d-1] + al) / (e[0] + al)
					}
					kR := cond(sts(rfdA, hs[2].Z, d), rfdA.Alpha())
					kF := cond(sts(fdA, hs[3].Z, d), 0.5)
					kM := cond(ata, 0.5)
					if kR > kF*(1+1e-10) || kR > kM*(1+1e-10) {
						t.Fatalf("step %d: κ(RFD) = %.6g, κ(FD) = %.6g, κ(AᵀA+α₀I) = %.6g", step, kR, kF, kM)
					}
					if step == len(rows)-1 {
						t.Logf("max error/bound: FD %.3f, RFD₀ %.3f; κ RFD %.4g ≤ FD %.4g, full %.4g", worst, worstR, kR, kF, kM)
					}
				}
			})
		}
	}
}

func sub(a, b [][]float64) [][]float64 {
	out := make([][]float64, len(a))
	for i := range a {
		out[i] = make([]float64, len(a[i]))
		for j := range a[i] {
			out[i][j] = a[i][j] - b[i][j]
		}
	}
	return out
}

// TestBoundsDense checks the same FD bound on the dense reference, so that
// the reference itself is known to be FD.
func TestBoundsDense(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	d, m := 30, 5
	for _, fast := range []bool{false, true} {
		f := dense.NewFD(m, d, 0, true, fast)
		var A [][]float64
		for _, g := range decayingStream(rng, 200, d, 8) {
			A = append(A, g)
			f.Update(g)
		}
		ata := gramT(A, d)
		sv := symEigen(ata)
		diff := sub(ata, gramT(f.Rows, d))
		for j := range diff {
			diff[j][j] -= f.A
		}
		ev := symEigen(diff)
		nrm := math.Max(math.Abs(ev[0]), math.Abs(ev[d-1]))
		var tail float64
		for i := 0; i < d; i++ {
			tail += sv[i]
		}
		if nrm > tail/(2*float64(m)) {
			t.Fatalf("fast=%v: dense RFD error %.6g > bound %.6g", fast, nrm, tail/(2*float64(m)))
		}
	}
}
