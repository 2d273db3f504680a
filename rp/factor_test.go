package rp

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/sparseson/sparseson/internal/linalg"
	"gonum.org/v1/gonum/mat"
)

// spd returns a random m×m symmetric positive definite matrix (row-major)
// with eigenvalues spread over [1, cond], as Q·diag·Qᵀ for a random
// orthogonal Q.
func spd(rng *rand.Rand, m int, cond float64) []float64 {
	g := mat.NewDense(m, m, nil)
	for i := 0; i < m; i++ {
		for j := 0; j < m; j++ {
			g.Set(i, j, rng.NormFloat64())
		}
	}
	var qr mat.QR
	qr.Factorize(g)
	var q mat.Dense
	qr.QTo(&q)
	A := make([]float64, m*m)
	for k := 0; k < m; k++ {
		lam := math.Pow(cond, float64(k)/math.Max(1, float64(m-1)))
		for i := 0; i < m; i++ {
			for j := 0; j < m; j++ {
				A[i*m+j] += lam * q.At(i, k) * q.At(j, k)
			}
		}
	}
	for i := 0; i < m; i++ { // exactly symmetric, as N is
		for j := 0; j < i; j++ {
			A[i*m+j] = A[j*m+i]
		}
	}
	return A
}

func randVec(rng *rand.Rand, m int) []float64 {
	v := make([]float64, m)
	for i := range v {
		v[i] = rng.NormFloat64()
	}
	return v
}

// shifted returns A + shift·I as a gonum matrix.
func shifted(A []float64, m int, shift float64) *mat.SymDense {
	S := mat.NewSymDense(m, nil)
	for i := 0; i < m; i++ {
		for j := i; j < m; j++ {
			v := A[i*m+j]
			if i == j {
				v += shift
			}
			S.SetSym(i, j, v)
		}
	}
	return S
}

// factorKernels is one form's Cholesky kernels behind a common shape:
// factor A + shift·I, then y = L⁻¹b and L_ij. The explicit-H form and
// inRowSpace use cholesky and forward, the factored form factorInto and
// fwd (the same factor, the substitution by reciprocals).
type factorKernels struct {
	name    string
	factor  func(A []float64, m int, shift float64) bool
	forward func(y, b []float64)
	at      func(i, j int) float64
}

func kernelSets(m int) []factorKernels {
	L := make([]float64, m*m)
	F, dinv := make([]float64, m*m), make([]float64, m)
	return []factorKernels{
		{"cholesky",
			func(A []float64, m int, shift float64) bool { return cholesky(L, A, m, shift) },
			func(y, b []float64) { forward(y, L, b, m) },
			func(i, j int) float64 { return L[i*m+j] }},
		{"factorInto",
			func(A []float64, m int, shift float64) bool { return factorInto(F, dinv, A, m, shift) },
			func(y, b []float64) { fwd(y, F, dinv, b, m) },
			func(i, j int) float64 { return F[i*m+j] }},
	}
}

// TestCholeskyKernels: both forms' factorisations (with their shift) and
// forward substitutions, and the factored form's cholSolve and fwd2, against
// gonum's Cholesky on random symmetric positive definite matrices up to
// condition number 1e8, negative shifts included, and the refusal of
// matrices a shift makes indefinite.
func TestCholeskyKernels(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	for _, tc := range []struct {
		m     int
		cond  float64
		shift float64
	}{
		{1, 1, 0}, {2, 10, 0.5}, {5, 1e3, 0}, {10, 1e2, 3}, {10, 1e6, -0.5},
		{10, 1e8, 0}, {20, 1e4, 1e-3}, {50, 1e3, 10}, {MaxM, 1e2, 0},
	} {
		m := tc.m
		A := spd(rng, m, tc.cond)
		b := randVec(rng, m)
		var ch mat.Cholesky
		if !ch.Factorize(shifted(A, m, tc.shift)) {
			t.Fatal("gonum: not positive definite")
		}
		var want mat.TriDense
		ch.LTo(&want)
		var wx mat.VecDense
		if err := ch.SolveVecTo(&wx, mat.NewVecDense(m, b)); err != nil {
			t.Fatal(err)
		}
		bAb := linalg.Dot(b, wx.RawVector().Data)
		// The factors differ by rounding amplified by at most √cond,
		// relative to ‖L‖ = √λ_max; solutions by cond.
		cond := (tc.cond + tc.shift) / (1 + tc.shift)
		tolL := 1e-14 * float64(m) * math.Sqrt(cond*(tc.cond+tc.shift))
		tolX := 1e-15 * cond * float64(m)
		for _, k := range kernelSets(m) {
			t.Run(fmt.Sprintf("%s_m%d_cond%g_shift%g", k.name, m, tc.cond, tc.shift), func(t *testing.T) {
				if !k.factor(A, m, tc.shift) {
					t.Fatal("refused a positive definite matrix")
				}
				for i := 0; i < m; i++ {
					for j := 0; j <= i; j++ {
						if d := math.Abs(k.at(i, j) - want.At(i, j)); d > tolL {
							t.Fatalf("L[%d,%d] = %v, gonum %v", i, j, k.at(i, j), want.At(i, j))
						}
					}
				}
				// ‖L⁻¹b‖² = bᵀ(A + shift·I)⁻¹b.
				y := make([]float64, m)
				k.forward(y, b)
				if got := linalg.Dot(y, y); math.Abs(got-bAb) > tolX*math.Abs(bAb) {
					t.Fatalf("‖L⁻¹b‖² = %v, gonum bᵀA⁻¹b = %v", got, bAb)
				}
				// A shift past the smallest eigenvalue (1 + shift) is refused.
				if k.factor(A, m, -(1+tc.shift)-0.5) {
					t.Fatal("accepted an indefinite matrix")
				}
			})
		}
		t.Run(fmt.Sprintf("cholSolve_m%d_cond%g_shift%g", m, tc.cond, tc.shift), func(t *testing.T) {
			F, dinv := make([]float64, m*m), make([]float64, m)
			if !factorInto(F, dinv, A, m, tc.shift) {
				t.Fatal("refused")
			}
			x := make([]float64, m)
			cholSolve(x, F, dinv, b, m)
			xn := mat.Norm(&wx, math.Inf(1))
			for i := range x {
				if d := math.Abs(x[i] - wx.AtVec(i)); d > tolX*xn {
					t.Fatalf("solve[%d] = %v, gonum %v", i, x[i], wx.AtVec(i))
				}
			}
			// fwd2 is fwd twice, to the bit; in place too.
			a2 := randVec(rng, m)
			u, v, ua, vb := make([]float64, m), make([]float64, m), make([]float64, m), append([]float64(nil), b...)
			fwd2(u, v, F, dinv, a2, b, m)
			fwd(ua, F, dinv, a2, m)
			fwd(vb, F, dinv, vb, m)
			for i := range u {
				if u[i] != ua[i] || v[i] != vb[i] {
					t.Fatalf("fwd2 [%d]: %v %v, fwd %v %v", i, u[i], v[i], ua[i], vb[i])
				}
			}
		})
	}
}

// TestCholInverse: the explicit H of the Woodbury form's refreshes (and of
// a saved factored sketch) against gonum's inverse.
func TestCholInverse(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	for _, m := range []int{1, 3, 10, 40} {
		A := spd(rng, m, 1e4)
		H, w := make([]float64, m*m), make([]float64, m*m)
		if !cholInverse(H, A, w, m) {
			t.Fatal("refused")
		}
		var inv mat.Dense
		if err := inv.Inverse(shifted(A, m, 0)); err != nil {
			t.Fatal(err)
		}
		for i := 0; i < m; i++ {
			for j := 0; j < m; j++ {
				if d := math.Abs(H[i*m+j] - inv.At(i, j)); d > 1e-15*1e4*float64(m) {
					t.Fatalf("m = %d: H[%d,%d] = %v, gonum %v", m, i, j, H[i*m+j], inv.At(i, j))
				}
			}
		}
	}
}

// TestCholesky2Bits: cholesky2's two factors are those of two cholesky
// calls, to the bit (the second on A + s1·I formed first), so that
// Captured does not depend on which path factored K + εI; both refuse
// what either call refuses.
func TestCholesky2Bits(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 11))
	for _, tc := range []struct {
		m      int
		s1, s2 float64
		ok     bool
	}{
		{1, 0.5, -0.3, true}, {4, 1e-3, 2, true}, {10, 0.37, -0.9, true}, {33, 3, -2.5, true},
		{10, -1.5, 0.1, false}, // A + s1·I indefinite
		{10, 0.5, -2, false},   // the second indefinite
	} {
		m := tc.m
		A := spd(rng, m, 100) // eigenvalues 1…100
		B := append([]float64(nil), A...)
		for i := 0; i < m; i++ {
			B[i*m+i] += tc.s1
		}
		L1, L2, M1, M2 := make([]float64, m*m), make([]float64, m*m), make([]float64, m*m), make([]float64, m*m)
		ok := cholesky(L1, A, m, tc.s1) && cholesky(L2, B, m, tc.s2)
		if got := cholesky2(M1, M2, A, m, tc.s1, tc.s2); got != ok || ok != tc.ok {
			t.Fatalf("m = %d, s = %v, %v: cholesky2 %v, cholesky %v, want %v", m, tc.s1, tc.s2, got, ok, tc.ok)
		}
		if !ok {
			continue
		}
		for i := 0; i < m; i++ {
			for j := 0; j <= i; j++ {
				if k := i*m + j; M1[k] != L1[k] || M2[k] != L2[k] {
					t.Fatalf("m = %d [%d,%d]: cholesky2 %v %v, cholesky %v %v", m, i, j, M1[k], M2[k], L1[k], L2[k])
				}
			}
		}
	}
}

// TestRank2Sane: the Woodbury determinant test from the factor decides
// positive definiteness of N + a rᵀ + r aᵀ + κ r rᵀ as gonum's Cholesky of
// the updated matrix does, on random updates either side of the boundary
// (those whose smallest eigenvalue is within 1e-9 of 0, relative, are
// left out: rounding may decide them either way).
func TestRank2Sane(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	var pd, indef int
	for trial := 0; trial < 400; trial++ {
		m := 1 + rng.IntN(12)
		s, err := New(Config{M: m, Alpha: 1, HostAlpha: true})
		if err != nil {
			t.Fatal(err)
		}
		copy(s.N, spd(rng, m, math.Pow(10, 4*rng.Float64())))
		s.p = m
		z, r := randVec(rng, m), randVec(rng, m)
		c := rng.NormFloat64()
		kap := math.Abs(rng.NormFloat64()) * float64(trial%3)
		copy(s.r, r)
		Np := make([]float64, m*m)
		copy(Np, s.N)
		for i := 0; i < m; i++ {
			for j := 0; j < m; j++ {
				Np[i*m+j] += c*z[i]*r[j] + r[i]*c*z[j] + kap*r[i]*r[j]
			}
		}
		var es mat.EigenSym
		if !es.Factorize(shifted(Np, m, 0), false) {
			t.Fatal("eigen")
		}
		vals := es.Values(nil)
		if math.Abs(vals[0]) < 1e-9*math.Abs(vals[m-1]) {
			continue
		}
		want := vals[0] > 0
		if want {
			pd++
		} else {
			indef++
		}
		if !s.factor() {
			t.Fatal("N not factored")
		}
		if got := s.rank2Sane(c, z, kap); got != want {
			t.Fatalf("trial %d (m = %d): rank2Sane %v, smallest eigenvalue of the update %v", trial, m, got, vals[0])
		}
	}
	if pd < 50 || indef < 50 {
		t.Fatalf("the draw left too few cases on a side: %d definite, %d indefinite", pd, indef)
	}
}

// BenchmarkCholesky: the factors of one round in the factored form, N's
// (for SetAlpha) and K + εI's (for Captured): "twice" as two cholesky
// calls, "fused" as SetAlpha makes them, by cholesky2.
func BenchmarkCholesky(b *testing.B) {
	for _, m := range []int{5, 10, 20, 50} {
		A := spd(rand.New(rand.NewPCG(1, 1)), m, 1e3)
		L1, L2 := make([]float64, m*m), make([]float64, m*m)
		b.Run(fmt.Sprintf("twice/m=%d", m), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if !cholesky(L1, A, m, 0.5) || !cholesky(L2, A, m, 0.1) {
					b.Fatal("refused")
				}
			}
		})
		b.Run(fmt.Sprintf("fused/m=%d", m), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if !cholesky2(L1, L2, A, m, 0.5, -0.4) {
					b.Fatal("refused")
				}
			}
		})
	}
}

// BenchmarkCholSolve: MulM in the factored form.
func BenchmarkCholSolve(b *testing.B) {
	for _, m := range []int{5, 10, 20, 50} {
		b.Run(fmt.Sprintf("m=%d", m), func(b *testing.B) {
			rng := rand.New(rand.NewPCG(1, 1))
			A := spd(rng, m, 1e3)
			L, dinv := make([]float64, m*m), make([]float64, m)
			factorInto(L, dinv, A, m, 0)
			z, x := randVec(rng, m), make([]float64, m)
			b.ReportAllocs()
			for b.Loop() {
				cholSolve(x, L, dinv, z, m)
			}
		})
	}
}

// BenchmarkRank2Sane: the O(m²) positive-definiteness check of an update.
func BenchmarkRank2Sane(b *testing.B) {
	for _, m := range []int{5, 10, 20, 50} {
		b.Run(fmt.Sprintf("m=%d", m), func(b *testing.B) {
			rng := rand.New(rand.NewPCG(1, 1))
			s, _ := New(Config{M: m, Alpha: 1, HostAlpha: true})
			copy(s.N, spd(rng, m, 1e3))
			s.p = m
			copy(s.r, randVec(rng, m))
			z := randVec(rng, m)
			s.factor()
			b.ReportAllocs()
			for b.Loop() {
				s.rank2Sane(0.3, z, 0.7)
			}
		})
	}
}

// TestFactoredShift: in the factored form SetAlpha moves N's diagonal and
// MulM applies the shifted N's inverse (against gonum); a shift that leaves
// N not positive definite is refused (α and N unchanged, MulM still the
// old N's inverse), and where N itself cannot be factored MulM is 0.
func TestFactoredShift(t *testing.T) {
	rng := rand.New(rand.NewPCG(10, 10))
	m := 6
	v := randVec(rng, m)
	for _, tc := range []struct {
		name     string
		k        float64 // N = 0.1·spd (eigenvalues 0.1…1) + k·vvᵀ, α = 1
		a        float64
		applied  bool
		singular bool
	}{
		{"up", 1, 3.5, true, false},
		{"down", 1, 0.95, true, false},
		// N − αI is not the positive semi-definite K of a real sketch
		// here: a shift by −0.5 makes N indefinite.
		{"refused", 1, 0.5, false, false},
		// cond(N) ≈ 1e21: no factor, before or after the shift.
		{"singular", 1e20, 3, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := New(Config{M: m, Alpha: 1, HostAlpha: true})
			if err != nil {
				t.Fatal(err)
			}
			K := spd(rng, m, 10)
			for i := 0; i < m; i++ {
				for j := 0; j < m; j++ {
					s.N[i*m+j] = 0.1*K[i*m+j] + tc.k*v[i]*v[j]
				}
			}
			s.p = m
			before := append([]float64(nil), s.N...)
			s.SetAlpha(tc.a)
			wantN := append([]float64(nil), before...)
			wantA := 1.0
			if tc.applied {
				wantA = tc.a
				for i := 0; i < m; i++ {
					wantN[i*m+i] += tc.a - 1
				}
			}
			if s.Alpha() != wantA {
				t.Fatalf("α = %v, want %v", s.Alpha(), wantA)
			}
			for i := range wantN {
				if s.N[i] != wantN[i] {
					t.Fatalf("N[%d] = %v, want %v", i, s.N[i], wantN[i])
				}
			}
			z := randVec(rng, m)
			got := make([]float64, m)
			for i := range got {
				got[i] = math.NaN()
			}
			s.MulM(got, z)
			if tc.singular {
				for i, g := range got {
					if g != 0 {
						t.Fatalf("MulM[%d] = %v without a factor, want 0", i, g)
					}
				}
				return
			}
			var ch mat.Cholesky
			if !ch.Factorize(shifted(wantN, m, 0)) {
				t.Fatal("gonum refused N")
			}
			var want mat.VecDense
			if err := ch.SolveVecTo(&want, mat.NewVecDense(m, z)); err != nil {
				t.Fatal(err)
			}
			tol := 1e-14 * ch.Cond() * mat.Norm(&want, math.Inf(1))
			for i := range got {
				if d := math.Abs(got[i] - want.AtVec(i)); !(d <= tol) {
					t.Fatalf("MulM[%d] = %v, gonum %v", i, got[i], want.AtVec(i))
				}
			}
		})
	}
}
