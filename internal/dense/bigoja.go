package dense

import (
	"math/big"

	"github.com/sparseson/sparseson/sparse"
)

// BigOjaSON is Oja-SON (Alg. 1 + Alg. 3, the warm-up rule of package oja)
// for squared loss in extended precision (math/big, Prec bits), without
// diagonal pre-scaling. It exists because squared-loss SON on
// ill-conditioned streams amplifies rounding errors by orders of magnitude
// (docs/algorithms.md §9, sensitivity note): there only an extended-precision
// reference tells which float64 implementation is accurate.
type BigOjaSON struct {
	D, M       int
	Prec       uint
	alpha, C   *big.Float
	sigma      *big.Float
	eta0, rate float64
	u          []*big.Float
	V          [][]*big.Float
	lam        []*big.Float
	t          int
}

// NewBigOjaSON returns the reference with σ_t + η_t = sigma + eta0/√t.
func NewBigOjaSON(d, m int, alpha, C, sigma, eta0, rate float64, prec uint) *BigOjaSON {
	b := &BigOjaSON{D: d, M: m, Prec: prec, eta0: eta0, rate: rate}
	b.alpha, b.C, b.sigma = b.f(alpha), b.f(C), b.f(sigma)
	b.u = b.vec(d)
	return b
}

func (b *BigOjaSON) f(v float64) *big.Float { return new(big.Float).SetPrec(b.Prec).SetFloat64(v) }
func (b *BigOjaSON) z() *big.Float          { return new(big.Float).SetPrec(b.Prec) }
func (b *BigOjaSON) vec(n int) []*big.Float {
	v := make([]*big.Float, n)
	for i := range v {
		v[i] = b.z()
	}
	return v
}

func (b *BigOjaSON) dot(x, y []*big.Float) *big.Float {
	s, t := b.z(), b.z()
	for i := range x {
		s.Add(s, t.Mul(x[i], y[i]))
	}
	return s
}

// ainv returns A⁻¹v = v/α + Vᵀ[(1/(α+E) − 1/α)∘(Vv)], exact for orthonormal V.
func (b *BigOjaSON) ainv(v []*big.Float) []*big.Float {
	out := b.vec(b.D)
	for j := range out {
		out[j].Quo(v[j], b.alpha)
	}
	tb := b.f(float64(b.t))
	for i, row := range b.V {
		e := b.z().Mul(tb, b.lam[i])
		coef := b.z().Quo(b.f(1), e.Add(e, b.alpha))
		coef.Sub(coef, b.z().Quo(b.f(1), b.alpha))
		coef.Mul(coef, b.dot(row, v))
		for j := range out {
			out[j].Add(out[j], b.z().Mul(coef, row[j]))
		}
	}
	return out
}

// Learn runs one round and returns the prediction as float64.
func (b *BigOjaSON) Learn(ex *sparse.Example) float64 {
	x := b.vec(b.D)
	for i, j := range ex.Idx {
		x[j].Add(x[j], b.f(ex.Val[i]))
	}
	w := b.u
	ux := b.dot(w, x)
	negC := b.z().Neg(b.C)
	if ux.Cmp(b.C) > 0 || ux.Cmp(negC) < 0 {
		tau := b.z()
		if ux.Sign() > 0 {
			tau.Sub(ux, b.C)
		} else {
			tau.Add(ux, b.C)
		}
		ax := b.ainv(x)
		q := b.dot(x, ax)
		gam := b.z().Quo(tau, q)
		for j := range w {
			w[j].Sub(w[j], b.z().Mul(gam, ax[j]))
		}
	}
	pred := b.dot(w, x)
	pf, _ := pred.Float64()
	// Squared loss: ℓ' = 2(p − y).
	d := b.z().Sub(pred, b.f(ex.Label))
	d.Mul(d, b.f(2))
	b.t++
	scale := b.f(b.eta0)
	scale.Quo(scale, b.z().Sqrt(b.f(float64(b.t))))
	scale.Add(scale, b.sigma)
	scale.Sqrt(scale)
	c := b.z().Mul(scale, d)
	g := b.vec(b.D)
	for j := range g {
		g[j].Mul(c, x[j])
	}
	b.sketch(g)
	ag := b.ainv(x)
	for j := range w {
		w[j].Sub(w[j], b.z().Mul(d, ag[j]))
	}
	return pf
}

func (b *BigOjaSON) sketch(g []*big.Float) {
	lgam := b.f(min(b.rate/float64(b.t), 1))
	g2 := b.dot(g, g)
	if g2.Sign() == 0 {
		for i := range b.lam {
			b.lam[i].Mul(b.lam[i], b.z().Sub(b.f(1), lgam))
		}
		return
	}
	// V's step is capped at 0.25/‖ĝ‖² (package oja's DefaultStepCap).
	gam := lgam
	if capped := b.z().Quo(b.f(0.25), g2); gam.Cmp(capped) > 0 {
		gam = capped
	}
	if len(b.V) < b.M {
		r := b.vec(b.D)
		for j := range r {
			r[j].Set(g[j])
		}
		for _, row := range b.V {
			c := b.dot(row, g)
			for j := range r {
				r[j].Sub(r[j], b.z().Mul(c, row[j]))
			}
		}
		r2 := b.dot(r, r)
		if r2.Cmp(b.z().Mul(g2, b.f(1e-4))) > 0 {
			nr := b.z().Sqrt(r2)
			for j := range r {
				r[j].Quo(r[j], nr)
			}
			b.V = append(b.V, r)
			b.lam = append(b.lam, b.z())
		}
	}
	one := b.f(1)
	for i, row := range b.V {
		v := b.dot(row, g)
		l := b.z().Mul(b.lam[i], b.z().Sub(one, lgam))
		b.lam[i] = l.Add(l, b.z().Mul(lgam, b.z().Mul(v, v)))
		gv := b.z().Mul(gam, v)
		for j := range row {
			row[j].Add(row[j], b.z().Mul(gv, g[j]))
		}
	}
	for i, row := range b.V {
		for k := 0; k < i; k++ {
			c := b.dot(b.V[k], row)
			for j := range row {
				row[j].Sub(row[j], b.z().Mul(c, b.V[k][j]))
			}
		}
		n := b.z().Sqrt(b.dot(row, row))
		for j := range row {
			row[j].Quo(row[j], n)
		}
	}
}
