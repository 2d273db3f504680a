package linalg

import "math"

//go:generate sh -c "go run oja_gen.go > oja_fused_amd64.s"

// The SON learners' passes over an example's feature rows, each fused with
// the product with Z's columns that followed it as a separate pass
// (GatherCols, ScatterCols). A row is [w̄_j, Z_{1…p, j}, …] at offset o:
// w̄_j at rows[o], the column of Z from rows[o+1]. Fused, the scalar work
// of a feature and its column's lanes are independent instructions in one
// loop, so the processor overlaps them (a square root and a division per
// feature in RescaleGather), and the offsets and values are read once.
// Every sum runs over the features in order with each product rounded,
// so the bits are those of the separate loops.
//
// The bounds are GatherCols': every row must hold the columns asked for,
// and the kernels check each offset before they read it.

// ScaleGather computes, over the example's features k (row offsets offs,
// values val), x̃_k = val[k]·rows[o+scale] (val[k] itself for scale < 0)
// into xt, and returns n = Σx̃_k², wx = Σ w̄_j·x̃_k and wsq = Σ w̄_j²,
// with z = Z·x̃ over the first len(z) rows of Z.
func ScaleGather(z, rows []float64, offs []int, val, xt []float64, scale int) (n, wx, wsq float64) {
	if len(offs) == 0 {
		clear(z)
		return 0, 0, 0
	}
	lim := fusedLim(rows, offs, 1+len(z), scale+1, val, xt)
	return scaleGather(z, rows, offs, val[:len(offs)], xt[:len(offs)], scale, lim)
}

// RescaleGather adds each feature's squared gradient (d·val[k])², h
// times, to D_j = rows[o+dOff] (saturated at MaxFloat64, as the fold
// guard's sums are), sets rows[o+dOff+1] = 1/√(d0 + D_j) and x̃_k =
// val[k]·rows[o+dOff+1] into xt, and returns n = Σx̃_k², with z = Z·x̃
// over the first len(z) rows of Z: the diagonal pre-scaling's update of
// Luo et al. (NIPS 2016), §5.2, and z with the new x̃.
func RescaleGather(z, rows []float64, offs []int, val, xt []float64, dOff int, d, h, d0 float64) (n float64) {
	if len(offs) == 0 {
		clear(z)
		return 0
	}
	if dOff < 0 {
		panic(errColRange)
	}
	lim := fusedLim(rows, offs, 1+len(z), dOff+2, val, xt)
	return rescaleGather(z, rows, offs, val[:len(offs)], xt[:len(offs)], dOff, lim, d, h, d0)
}

// AbsorbScatter writes w̄_j ← w̄_j − f·x̃_k (only if pend), then
// w̄_j ← w̄_j − cb·x̃_k, for each feature, and returns wx = Σ w̄_j·x̃_k
// between the two and sq = Σ w̄_j² after both, with Z += δ·(c·x̃)ᵀ on
// the example's columns (ScatterCols; the offsets must be distinct).
func AbsorbScatter(rows []float64, offs []int, xt []float64, c float64, delta []float64, pend bool, f, cb float64) (wx, sq float64) {
	if len(offs) == 0 {
		return 0, 0
	}
	lim := fusedLim(rows, offs, 1+len(delta), 0, xt, xt)
	return absorbScatter(rows, offs, xt[:len(offs)], c, delta, pend, f, cb, lim)
}

// fusedLim checks the lengths the kernels take on trust and returns the
// largest offset whose row holds max(width, need) values.
func fusedLim(rows []float64, offs []int, width, need int, val, xt []float64) int {
	if len(val) < len(offs) || len(xt) < len(offs) {
		panic(errColVals)
	}
	lim := len(rows) - max(width, need)
	if lim < 0 {
		panic(errColRange)
	}
	return lim
}

// fusedLanes is the most lanes a fused kernel holds in registers; a wider
// z (or δ) has its remaining lanes summed by the column kernels after.
const fusedLanes = 16

// The Go definitions of the fused kernels: the loops they replace, with
// explicit conversions so that no build fuses a multiply-add. The offsets
// were checked against lim.

func scaleGatherGo(z, rows []float64, offs []int, val, xt []float64, scale, lim int) (n, wx, wsq float64) {
	checkOffs(offs, lim)
	for k, o := range offs {
		x := val[k]
		if scale >= 0 {
			x = float64(x * rows[o+scale])
		}
		xt[k] = x
		n = float64(n + float64(x*x))
		w := rows[o]
		wx = float64(wx + float64(w*x))
		wsq = float64(wsq + float64(w*w))
	}
	gatherColsGo(z, rows[1:], offs, xt)
	return n, wx, wsq
}

func rescaleGatherGo(z, rows []float64, offs []int, val, xt []float64, dOff, lim int, d, h, d0 float64) (n float64) {
	checkOffs(offs, lim)
	for k, o := range offs {
		x := val[k]
		gx := float64(d * x)
		dd := float64(rows[o+dOff] + float64(float64(h*gx)*gx))
		if !(dd <= math.MaxFloat64) {
			dd = math.MaxFloat64
		}
		r := 1 / math.Sqrt(float64(d0+dd))
		rows[o+dOff], rows[o+dOff+1] = dd, r
		x = float64(x * r)
		xt[k] = x
		n = float64(n + float64(x*x))
	}
	gatherColsGo(z, rows[1:], offs, xt)
	return n
}

func absorbScatterGo(rows []float64, offs []int, xt []float64, c float64, delta []float64, pend bool, f, cb float64, lim int) (wx, sq float64) {
	checkOffs(offs, lim)
	for k, o := range offs {
		x := xt[k]
		w := rows[o]
		if pend {
			w = float64(w - float64(f*x))
		}
		wx = float64(wx + float64(w*x))
		w = float64(w - float64(cb*x))
		rows[o] = w
		sq = float64(sq + float64(w*w))
	}
	scatterColsGo(rows[1:], offs, xt, c, delta)
	return wx, sq
}

func checkOffs(offs []int, lim int) {
	for _, o := range offs {
		if uint(o) > uint(lim) {
			panic(errColRange)
		}
	}
}
