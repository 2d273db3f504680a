package dense

import (
	"math"

	"gonum.org/v1/gonum/mat"
)

// Oja is Oja's sketch with an explicit orthonormal V (Luo et al. (NIPS 2016), Eq. 4 and
// Alg. 3), Γ_t = min(rate/t, 1)·I for Λ and γ_t = min(Γ_t, Cap/‖ĝ‖²) for V,
// and the warm-up rule of package oja: while fewer than m rows exist, the
// normalised part of ĝ orthogonal to the rows is appended when it holds
// more than 10⁻⁴ of ‖ĝ‖².
type Oja struct {
	M    int
	D    int
	A    float64
	Rate float64
	Cap  float64     // the step cap of package oja (+Inf: none)
	V    [][]float64 // rows, orthonormal
	Lam  []float64
	T    float64
}

// NewOja returns the dense Oja sketch with the default step cap of package
// oja (0.25).
func NewOja(m, d int, alpha, rate float64) *Oja {
	return &Oja{M: m, D: d, A: alpha, Rate: rate, Cap: 0.25}
}

func (o *Oja) Alpha() float64     { return o.A }
func (o *Oja) SetAlpha(a float64) { o.A = a }
func (o *Oja) Rank() int          { return len(o.V) }

// Captured is Σ tΛ_i.
func (o *Oja) Captured() (v float64) {
	for _, l := range o.Lam {
		v += o.T * l
	}
	return v
}

func (o *Oja) S() *mat.Dense {
	p := len(o.V)
	if p == 0 {
		return mat.NewDense(1, o.D, nil) // a zero row: SᵀS = 0
	}
	S := mat.NewDense(p, o.D, nil)
	for i, row := range o.V {
		e := math.Sqrt(math.Max(o.T*o.Lam[i], 0))
		for j, v := range row {
			S.Set(i, j, e*v)
		}
	}
	return S
}

func (o *Oja) Update(g []float64) {
	o.T++
	lgam := math.Min(o.Rate/o.T, 1)
	g2 := dotv(g, g)
	if g2 == 0 {
		for i := range o.Lam {
			o.Lam[i] *= 1 - lgam
		}
		return
	}
	gam := lgam
	if gam*g2 > o.Cap {
		gam = o.Cap / g2
	}
	if len(o.V) < o.M {
		r := append([]float64(nil), g...)
		for _, row := range o.V {
			c := dotv(row, g)
			for j := range r {
				r[j] -= c * row[j]
			}
		}
		if r2 := dotv(r, r); r2 > 1e-4*g2 {
			nr := math.Sqrt(r2)
			for j := range r {
				r[j] /= nr
			}
			o.V = append(o.V, r)
			o.Lam = append(o.Lam, 0)
		}
	}
	p := len(o.V)
	v := make([]float64, p)
	for i, row := range o.V {
		v[i] = dotv(row, g)
		o.Lam[i] = (1-lgam)*o.Lam[i] + lgam*v[i]*v[i]
	}
	// V ← orth(V + ΓVĝĝᵀ): Gram–Schmidt in row order (twice, for accuracy).
	for i, row := range o.V {
		for j := range row {
			row[j] += gam * v[i] * g[j]
		}
	}
	gramSchmidt(o.V)
	gramSchmidt(o.V)
}

// gramSchmidt orthonormalises rows in order (modified Gram–Schmidt); the
// result equals the sparse sketch's V = FZ (lower-triangular F, positive
// diagonal).
func gramSchmidt(V [][]float64) {
	for i, row := range V {
		for k := 0; k < i; k++ {
			c := dotv(V[k], row)
			for j := range row {
				row[j] -= c * V[k][j]
			}
		}
		n := math.Sqrt(dotv(row, row))
		for j := range row {
			row[j] /= n
		}
	}
}
