package fd

import (
	"math"
	"math/rand/v2"

	"github.com/sparseson/sparseson/internal/dense"
	"github.com/sparseson/sparseson/sparse"
)

// denseHost is a sparse.Host over an explicit p×d matrix Z, for driving a
// sketch with arbitrary ĝ sequences without the SON core (no weights, so
// Fold is a no-op).
type denseHost struct {
	d    int
	Z    [][]float64
	x    []float64
	c    float64
	st   sparse.Step
	zbuf []float64
}

func newDenseHost(d, pmax int) *denseHost {
	return &denseHost{d: d, zbuf: make([]float64, pmax)}
}

// feed runs one Update with ĝ = c·x.
func (h *denseHost) feed(sk *Sketch, c float64, x []float64) {
	h.x, h.c = x, c
	p := len(h.Z)
	h.st.Z = h.zbuf[:p]
	for i, row := range h.Z {
		h.st.Z[i] = dotv(row, x)
	}
	h.st.C, h.st.N = c, dotv(x, x)
	sk.Update(&h.st, h)
	if len(h.st.Z) != sk.Rows() || len(h.Z) != sk.Rows() {
		panic("denseHost: row count out of sync")
	}
}

func (h *denseHost) Absorb(delta []float64) {
	cn := h.c * dotv(h.x, h.x)
	for i, row := range h.Z {
		for j := range row {
			row[j] += delta[i] * h.c * h.x[j]
		}
		h.st.Z[i] += delta[i] * cn
	}
}

func (h *denseHost) Append() {
	row := make([]float64, h.d)
	for j := range row {
		row[j] = h.c * h.x[j]
	}
	p := len(h.Z)
	h.Z = append(h.Z, row)
	h.st.Z = h.zbuf[:p+1]
	h.st.Z[p] = h.c * dotv(h.x, h.x)
}

func (h *denseHost) Fold() {}

func (h *denseHost) Transform(T []float64, nr int, gram []float64) {
	p := len(h.Z)
	nz := make([][]float64, nr)
	for i := range nz {
		nz[i] = make([]float64, h.d)
		for k := 0; k < p; k++ {
			if t := T[i*p+k]; t != 0 {
				for j := range nz[i] {
					nz[i][j] += t * h.Z[k][j]
				}
			}
		}
	}
	h.Z = nz
	if gram != nil {
		for i := 0; i < nr; i++ {
			for j := 0; j < nr; j++ {
				gram[i*nr+j] = dotv(nz[i], nz[j])
			}
		}
	}
	h.st.Z = h.zbuf[:nr]
	for i, row := range h.Z {
		h.st.Z[i] = dotv(row, h.x)
	}
}

func dotv(a, b []float64) (s float64) {
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

// sts returns SᵀS (d×d) of a sparse sketch given its Z (rows p×d).
func sts(sk *Sketch, Z [][]float64, d int) [][]float64 {
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
	return gramT(S, d)
}

// gramT returns RᵀR for rows R (each of length d).
func gramT(R [][]float64, d int) [][]float64 {
	out := make([][]float64, d)
	for i := range out {
		out[i] = make([]float64, d)
	}
	for _, r := range R {
		for i, a := range r {
			if a == 0 {
				continue
			}
			for j, b := range r {
				out[i][j] += a * b
			}
		}
	}
	return out
}

// maxAbs returns max|a_ij| and max|a_ij − b_ij|.
func maxAbsDiff(a, b [][]float64) (scale, diff float64) {
	for i := range a {
		for j := range a[i] {
			scale = math.Max(scale, math.Abs(b[i][j]))
			diff = math.Max(diff, math.Abs(a[i][j]-b[i][j]))
		}
	}
	return scale, diff
}

// denseRows returns the rows of a dense FD sketch.
func denseRows(f *dense.FD) [][]float64 { return f.Rows }

// randomStream returns T sparse random vectors in R^d with s nonzeros,
// N(0,1) values times a per-step magnitude e^{U(−spread, spread)}.
func randomStream(rng *rand.Rand, T, d, s int, spread float64) [][]float64 {
	out := make([][]float64, T)
	for t := range out {
		g := make([]float64, d)
		mag := math.Exp(spread * (2*rng.Float64() - 1))
		for _, j := range rng.Perm(d)[:s] {
			g[j] = mag * rng.NormFloat64()
		}
		out[t] = g
	}
	return out
}
