package linalg

import (
	"math"
	"math/rand/v2"
	"testing"
)

// The references of the fused kernels: the separate loops they replace
// (the scalar pass, then the column kernel's reference), one rounding per
// operation.

func scaleGatherRef(z, rows []float64, offs []int, val, xt []float64, scale int) (n, wx, wsq float64) {
	for k, o := range offs {
		x := val[k]
		if scale >= 0 {
			x = float64(x * rows[o+scale])
		}
		xt[k] = x
		n = float64(n + float64(x*x))
		wx = float64(wx + float64(rows[o]*x))
		wsq = float64(wsq + float64(rows[o]*rows[o]))
	}
	gatherRef(z, rows[1:], offs, xt)
	return n, wx, wsq
}

func rescaleGatherRef(z, rows []float64, offs []int, val, xt []float64, dOff int, d, h, d0 float64) (n float64) {
	for k, o := range offs {
		gx := float64(d * val[k])
		dd := float64(rows[o+dOff] + float64(float64(h*gx)*gx))
		if math.IsNaN(dd) || dd > math.MaxFloat64 {
			dd = math.MaxFloat64
		}
		r := float64(1 / math.Sqrt(float64(d0+dd)))
		rows[o+dOff], rows[o+dOff+1] = dd, r
		xt[k] = float64(val[k] * r)
		n = float64(n + float64(xt[k]*xt[k]))
	}
	gatherRef(z, rows[1:], offs, xt)
	return n
}

func absorbScatterRef(rows []float64, offs []int, xt []float64, c float64, delta []float64, pend bool, f, cb float64) (wx, sq float64) {
	for k, o := range offs {
		w := rows[o]
		if pend {
			w = float64(w - float64(f*xt[k]))
		}
		wx = float64(wx + float64(w*xt[k]))
		w = float64(w - float64(cb*xt[k]))
		rows[o] = w
		sq = float64(sq + float64(w*w))
	}
	scatterRef(rows[1:], offs, xt, c, delta)
	return wx, sq
}

func sameBit(a, b float64) bool { return math.Float64bits(a) == math.Float64bits(b) }

// fusedCase is colsCase with rows wide enough for the diagonal's two
// columns after Z's p (at dOff = p+1) and values for every feature; some
// D_j are huge or NaN, so that the saturation shows, and some features
// repeat the row of the one before (hash collisions: RescaleGather's
// pairs must then go one at a time).
func fusedCase(r *rand.Rand, p, s int) (rows []float64, offs []int, val []float64, dOff int) {
	dOff = p + 1
	stride := p + 3
	n := s + r.IntN(4)
	rows = make([]float64, n*stride+1)
	for i := range rows {
		rows[i] = mixed(r)
	}
	for _, k := range r.Perm(n)[:s] {
		o := k * stride
		offs = append(offs, o)
		switch r.IntN(16) {
		case 0:
			rows[o+dOff] = math.MaxFloat64
		case 1:
			rows[o+dOff] = math.NaN()
		case 2:
			rows[o+dOff] = math.Inf(1)
		default:
			rows[o+dOff] = math.Abs(rows[o+dOff])
		}
	}
	for k := 1; k < len(offs); k++ {
		if r.IntN(8) == 0 {
			offs[k] = offs[k-1]
		}
	}
	val = make([]float64, s+r.IntN(2))
	for i := range val {
		val[i] = mixed(r)
	}
	return rows, offs, val, dOff
}

// TestFusedBits: each fused kernel (and its Go definition) against the
// separate loops, bit for bit, for every lane count 0–37 (the kernels hold
// 16 lanes; the rest go to the column kernels) and example sizes 0–141.
func TestFusedBits(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 11))
	for p := 0; p <= 37; p++ {
		for _, s := range []int{0, 1, 2, 3, 7, 40, 141} {
			for _, scale := range []int{-1, p + 2} {
				rows, offs, val, _ := fusedCase(r, p, s)
				xw, xg, xr := make([]float64, len(val)), make([]float64, len(val)), make([]float64, len(val))
				zw, zg, zr := make([]float64, p), make([]float64, p), make([]float64, p)
				n0, w0, q0 := scaleGatherRef(zw, rows, offs, val, xw, scale)
				n1, w1, q1 := ScaleGather(zg, rows, offs, val, xg, scale)
				n2, w2, q2 := scaleGatherGo(zr, rows, offs, val, xr, scale, len(rows)-max(p+1, scale+1))
				if !sameBits(zw, zg) || !sameBits(zw, zr) || !sameBits(xw, xg) || !sameBits(xw, xr) ||
					!sameBit(n0, n1) || !sameBit(w0, w1) || !sameBit(q0, q1) || !sameBit(n0, n2) || !sameBit(w0, w2) || !sameBit(q0, q2) {
					t.Fatalf("ScaleGather p=%d s=%d scale=%d: kernel or Go differs", p, s, scale)
				}
			}
			rows, offs, val, dOff := fusedCase(r, p, s)
			d, h, d0 := mixed(r), math.Abs(mixed(r)), 0.1
			rw, rg, rgo := append([]float64(nil), rows...), append([]float64(nil), rows...), append([]float64(nil), rows...)
			xw, xg, xr := make([]float64, len(val)), make([]float64, len(val)), make([]float64, len(val))
			zw, zg, zr := make([]float64, p), make([]float64, p), make([]float64, p)
			n0 := rescaleGatherRef(zw, rw, offs, val, xw, dOff, d, h, d0)
			n1 := RescaleGather(zg, rg, offs, val, xg, dOff, d, h, d0)
			n2 := rescaleGatherGo(zr, rgo, offs, val, xr, dOff, len(rows)-dOff-2, d, h, d0)
			if !sameBits(zw, zg) || !sameBits(zw, zr) || !sameBits(xw, xg) || !sameBits(xw, xr) ||
				!sameBits(rw, rg) || !sameBits(rw, rgo) || !sameBit(n0, n1) || !sameBit(n0, n2) {
				t.Fatalf("RescaleGather p=%d s=%d: kernel or Go differs", p, s)
			}
			for _, pend := range []bool{false, true} {
				delta := make([]float64, p)
				for i := range delta {
					delta[i] = mixed(r)
				}
				c, f, cb := mixed(r), mixed(r), mixed(r)
				rw, rg, rgo := append([]float64(nil), rows...), append([]float64(nil), rows...), append([]float64(nil), rows...)
				w0, q0 := absorbScatterRef(rw, offs, val, c, delta, pend, f, cb)
				w1, q1 := AbsorbScatter(rg, offs, val, c, delta, pend, f, cb)
				w2, q2 := absorbScatterGo(rgo, offs, val, c, delta, pend, f, cb, len(rows)-p-1)
				if !sameBits(rw, rg) || !sameBits(rw, rgo) || !sameBit(w0, w1) || !sameBit(q0, q1) || !sameBit(w0, w2) || !sameBit(q0, q2) {
					t.Fatalf("AbsorbScatter p=%d s=%d pend=%v: kernel or Go differs", p, s, pend)
				}
			}
		}
	}
}

// TestFusedBounds: an offset whose row cannot hold what a kernel reads or
// writes panics before anything is read, as does a short value slice.
func TestFusedBounds(t *testing.T) {
	rows := make([]float64, 20)
	z, x := make([]float64, 4), make([]float64, 3)
	for _, tc := range []struct {
		name string
		op   func()
	}{
		{"gather past the end", func() { ScaleGather(z, rows, []int{16}, x, x, -1) }},
		{"gather scale past the end", func() { ScaleGather(z, rows, []int{10}, x, x, 10) }},
		{"gather negative", func() { ScaleGather(z, rows, []int{-1}, x, x, -1) }},
		{"gather short values", func() { ScaleGather(z, rows, []int{0, 1, 2, 3}, x, x, -1) }},
		{"rescale past the end", func() { RescaleGather(z, rows, []int{0, 13}, x, x, 6, 1, 1, 0.1) }},
		{"rescale negative dOff", func() { RescaleGather(z, rows, []int{0}, x, x, -1, 1, 1, 0.1) }},
		{"absorb past the end", func() { AbsorbScatter(rows, []int{0, 16}, x, 1, z, true, 1, 1) }},
		{"absorb wide past the end", func() { AbsorbScatter(make([]float64, 40), []int{20}, x, 1, make([]float64, 20), false, 1, 1) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Error("no panic")
				}
			}()
			tc.op()
		})
	}
	// The last rows that fit.
	ScaleGather(z, rows, []int{15}, x, x, 4)
	RescaleGather(z, rows, []int{14}, x, x, 4, 1, 1, 0.1)
	AbsorbScatter(rows, []int{15}, x, 1, z, true, 1, 1)
	z[0] = 1
	if n, _, _ := ScaleGather(z, rows, nil, nil, nil, -1); n != 0 || z[0] != 0 {
		t.Errorf("ScaleGather without columns: n = %v, z = %v", n, z)
	}
}

// BenchmarkFused: news20's shape (~140 features, Oja-SON's m = 10, rows of
// stride 13) for each fused kernel against the separate passes it
// replaces.
func BenchmarkFused(b *testing.B) {
	const p, s = 10, 140
	r := rand.New(rand.NewPCG(1, 2))
	rows, offs, val, dOff := fusedCase(r, p, s)
	for i := range rows {
		rows[i] = math.Abs(rows[i]) + 1
	}
	z, xt, delta := make([]float64, p), make([]float64, len(val)), make([]float64, p)
	b.Run("ScaleGather", func(b *testing.B) {
		for b.Loop() {
			ScaleGather(z, rows, offs, val, xt, dOff+1)
		}
	})
	b.Run("RescaleGather", func(b *testing.B) {
		for b.Loop() {
			RescaleGather(z, rows, offs, val, xt, dOff, 1e-9, 1, 0.1)
		}
	})
	b.Run("AbsorbScatter", func(b *testing.B) {
		for b.Loop() {
			AbsorbScatter(rows, offs, xt, 1e-9, delta, true, 1e-9, 1e-9)
		}
	})
}
