package linalg

import (
	"math"
	"math/rand/v2"
	"testing"
)

// colsCase is a random row store with distinct column offsets, values of
// mixed magnitudes and signs (so that the order of the sums shows in the
// bits), and some exact zeros and negative zeros.
func colsCase(r *rand.Rand, p, s int) (rows []float64, offs []int, xt []float64) {
	stride := p + 3
	n := s + r.IntN(4)
	rows = make([]float64, n*stride+p)
	for i := range rows {
		rows[i] = mixed(r)
	}
	for _, k := range r.Perm(n)[:s] {
		offs = append(offs, k*stride+r.IntN(3))
	}
	xt = make([]float64, s+r.IntN(2)) // xt may be longer than offs
	for i := range xt {
		xt[i] = mixed(r)
	}
	return rows, offs, xt
}

func mixed(r *rand.Rand) float64 {
	switch r.IntN(12) {
	case 0:
		return 0
	case 1:
		return math.Copysign(0, -1)
	}
	return r.NormFloat64() * math.Ldexp(1, r.IntN(40)-20)
}

// The reference: one rounded product and one rounded sum per term, k in
// order (float64 conversions forbid fused multiply-adds).
func gatherRef(z, rows []float64, offs []int, xt []float64) {
	for i := range z {
		var a float64
		for k, o := range offs {
			a = float64(a + float64(xt[k]*rows[o+i]))
		}
		z[i] = a
	}
}

func scatterRef(rows []float64, offs []int, xt []float64, c float64, d []float64) {
	for k, o := range offs {
		a := float64(c * xt[k])
		for i, di := range d {
			rows[o+i] = float64(rows[o+i] + float64(a*di))
		}
	}
}

func sameBits(a, b []float64) bool {
	for i := range a {
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
			return false
		}
	}
	return len(a) == len(b)
}

func TestGatherScatterColsBits(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 7))
	for p := 0; p <= 37; p++ {
		for _, s := range []int{0, 1, 2, 3, 7, 40, 141} {
			rows, offs, xt := colsCase(r, p, s)
			want, got, gotGo := make([]float64, p), make([]float64, p), make([]float64, p)
			gatherRef(want, rows, offs, xt)
			GatherCols(got, rows, offs, xt)
			gatherColsGo(gotGo, rows, offs, xt)
			if !sameBits(want, got) || !sameBits(want, gotGo) {
				t.Fatalf("gather p=%d s=%d: kernel %v, Go %v, want %v", p, s, got, gotGo, want)
			}
			d := make([]float64, p)
			for i := range d {
				d[i] = mixed(r)
			}
			c := mixed(r)
			ref := append([]float64(nil), rows...)
			viaGo := append([]float64(nil), rows...)
			scatterRef(ref, offs, xt, c, d)
			ScatterCols(rows, offs, xt, c, d)
			scatterColsGo(viaGo, offs, xt, c, d)
			if !sameBits(ref, rows) || !sameBits(ref, viaGo) {
				t.Fatalf("scatter p=%d s=%d: kernel or Go loop differs from the reference", p, s)
			}
		}
	}
}

func TestColsBounds(t *testing.T) {
	rows := make([]float64, 20)
	for _, tc := range []struct {
		name string
		p    int
		offs []int
		xt   []float64
	}{
		{"past the end", 10, []int{11}, []float64{1}},
		{"negative", 2, []int{-1}, []float64{1}},
		{"short xt", 2, []int{0, 4}, []float64{1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, op := range []func(){
				func() { GatherCols(make([]float64, tc.p), rows, tc.offs, tc.xt) },
				func() { ScatterCols(rows, tc.offs, tc.xt, 1, make([]float64, tc.p)) },
			} {
				func() {
					defer func() {
						if recover() == nil {
							t.Error("no panic")
						}
					}()
					op()
				}()
			}
		})
	}
	GatherCols(make([]float64, 10), rows, []int{10}, []float64{1}) // the last column that fits
	z := []float64{1, 2, 3}
	GatherCols(z, nil, nil, nil) // no columns: z = 0, whatever rows is
	ScatterCols(nil, nil, nil, 1, z)
	if z[0] != 0 || z[1] != 0 || z[2] != 0 {
		t.Errorf("GatherCols without columns left %v", z)
	}
}

// news20's shape: ~140 features, columns of 10 (Oja-SON, m = 10) and 14
// (FD-SON's row cap at m = 10), rows of stride 13–17 scattered in a table.
func BenchmarkGatherCols(b *testing.B) {
	for _, p := range []int{10, 14} {
		r := rand.New(rand.NewPCG(1, 2))
		rows, offs, xt := colsCase(r, p, 140)
		z := make([]float64, p)
		b.Run(map[int]string{10: "p10", 14: "p14"}[p], func(b *testing.B) {
			for range b.N {
				GatherCols(z, rows, offs, xt)
			}
		})
		b.Run(map[int]string{10: "p10go", 14: "p14go"}[p], func(b *testing.B) {
			for range b.N {
				gatherColsGo(z, rows, offs, xt)
			}
		})
	}
}

func BenchmarkScatterCols(b *testing.B) {
	for _, p := range []int{10, 14} {
		r := rand.New(rand.NewPCG(1, 2))
		rows, offs, xt := colsCase(r, p, 140)
		d := make([]float64, p)
		for i := range d {
			d[i] = 1e-9 * r.NormFloat64()
		}
		b.Run(map[int]string{10: "p10", 14: "p14"}[p], func(b *testing.B) {
			for range b.N {
				ScatterCols(rows, offs, xt, 1e-3, d)
			}
		})
		b.Run(map[int]string{10: "p10go", 14: "p14go"}[p], func(b *testing.B) {
			for range b.N {
				scatterColsGo(rows, offs, xt, 1e-3, d)
			}
		})
	}
}
