//go:build ignore

// oja_gen writes oja_fused_amd64.s, the SSE2 kernels of ScaleGather,
// RescaleGather and AbsorbScatter (oja_fused.go) for blocks of n = 0…16 lanes:
//
//	go run oja_gen.go > oja_fused_amd64.s
//
// Generated rather than written out by hand because the three families
// differ only in their per-column scalar part, and each needs a copy per
// lane count (a lane count fixed at assembly time keeps the lanes in
// registers across the example, as cols_amd64.s does).
package main

import (
	"fmt"
	"os"
	"strings"
)

var b strings.Builder

func p(format string, args ...any) { fmt.Fprintf(&b, format+"\n", args...) }

// lanes emits, for the n lanes of a block, the accumulate (gather) or
// update (scatter) of each register's pair of values with the feature's
// value in both lanes of X8; the row's lanes start at byte 8 of base
// (after w̄_j).
func lanes(n int, scatter bool) { lanesOf(n, scatter, "X8", "BX") }

// lanesOf is lanes with the value in bc and the row at base.
func lanesOf(n int, scatter bool, bc, base string) {
	for j := 0; 2*j < n; j++ {
		off := 8 + 16*j
		switch {
		case 2*j+1 < n && !scatter:
			p("\tMOVUPD %d(%s), X9", off, base)
			p("\tMULPD  %s, X9", bc)
			p("\tADDPD  X9, X%d", j)
		case !scatter:
			p("\tMOVSD %d(%s), X9", off, base)
			p("\tMULSD %s, X9", bc)
			p("\tADDSD X9, X%d", j)
		case 2*j+1 < n:
			p("\tMOVAPD %s, X9", bc)
			p("\tMULPD  X%d, X9", j)
			p("\tMOVUPD %d(%s), X10", off, base)
			p("\tADDPD  X9, X10")
			p("\tMOVUPD X10, %d(%s)", off, base)
		default:
			p("\tMOVAPD %s, X9", bc)
			p("\tMULSD  X%d, X9", j)
			p("\tMOVSD  %d(%s), X10", off, base)
			p("\tADDSD  X9, X10")
			p("\tMOVSD  X10, %d(%s)", off, base)
		}
	}
}

// zero clears the accumulators of n lanes.
func zero(n int) {
	for j := 0; 2*j < n; j++ {
		p("\tXORPS X%d, X%d", j, j)
	}
}

// store writes the accumulators of n lanes to z (DI).
func store(n int) {
	for j := 0; 2*j < n; j++ {
		if 2*j+1 < n {
			p("\tMOVUPD X%d, %d(DI)", j, 16*j)
		} else {
			p("\tMOVSD X%d, %d(DI)", j, 16*j)
		}
	}
}

// loadDelta loads n lanes of δ (DI) into X0….
func loadDelta(n int) {
	for j := 0; 2*j < n; j++ {
		if 2*j+1 < n {
			p("\tMOVUPD %d(DI), X%d", 16*j, j)
		} else {
			p("\tMOVSD %d(DI), X%d", 16*j, j)
		}
	}
}

// column emits the offset check and BX = &rows[offs[k]].
func column(fail string) {
	p("\tMOVQ (R8)(AX*8), DX")
	p("\tCMPQ DX, R10")
	p("\tJHI  %s", fail)
	p("\tLEAQ (SI)(DX*8), BX")
}

func next(loop string) {
	p("\tINCQ AX")
	p("\tCMPQ AX, CX")
	p("\tJLT  %s", loop)
}

func scaleGather(n int) {
	name := fmt.Sprintf("sg%d", n)
	p("// func scaleGather%d(z, rows []float64, offs []int, val, xt []float64, scale, lim int) (n, wx, wsq float64, ok bool)", n)
	p("TEXT ·scaleGather%d(SB), NOSPLIT, $0-161", n)
	gatherArgs()
	p("\tMOVQ scale+120(FP), R12")
	p("\tMOVQ lim+128(FP), R10")
	zero(n)
	p("\tXORPS X11, X11")
	p("\tXORPS X12, X12")
	p("\tXORPS X13, X13")
	p("\tXORQ AX, AX")
	p("\tTESTQ CX, CX")
	p("\tJE   %sdone", name)
	p("\tTESTQ R12, R12")
	p("\tJL   %splain", name)
	for _, diag := range []bool{true, false} {
		loop := name + "loop"
		if !diag {
			p("%splain:", name)
			loop = name + "ploop"
		}
		p("%s:", loop)
		column(name + "fail")
		p("\tMOVSD (R13)(AX*8), X8")
		if diag {
			p("\tMULSD (BX)(R12*8), X8")
		}
		p("\tMOVSD X8, (R9)(AX*8)")
		p("\tMOVAPD X8, X9")
		p("\tMULSD X8, X9")
		p("\tADDSD X9, X11")
		p("\tMOVSD (BX), X10")
		p("\tMOVAPD X10, X9")
		p("\tMULSD X8, X9")
		p("\tADDSD X9, X12")
		p("\tMULSD X10, X10")
		p("\tADDSD X10, X13")
		if n > 0 {
			p("\tUNPCKLPD X8, X8")
		}
		lanes(n, false)
		next(loop)
		if diag {
			p("\tJMP  %sdone", name)
		}
	}
	p("%sdone:", name)
	store(n)
	p("\tMOVSD X11, n+136(FP)")
	p("\tMOVSD X12, wx+144(FP)")
	p("\tMOVSD X13, wsq+152(FP)")
	p("\tMOVB $1, ok+160(FP)")
	p("\tRET")
	p("%sfail:", name)
	p("\tMOVB $0, ok+160(FP)")
	p("\tRET")
	p("")
}

// rescalePair emits the body of rescaleGather's loop for two features,
// offsets DX and R14 (checked, distinct) at k = AX and AX+1.
func rescalePair(n int) {
	p("\tLEAQ (SI)(DX*8), BX")
	p("\tLEAQ (SI)(R14*8), R11")
	p("\tMOVUPD (R13)(AX*8), X8") // x
	p("\tMOVAPD X8, X9")
	p("\tMULPD X12, X9") // gx = d·x
	p("\tMOVAPD X9, X10")
	p("\tMULPD X13, X10") // h·gx
	p("\tMULPD X9, X10")  // (h·gx)·gx
	p("\tMOVSD (BX)(R12*8), X9")
	p("\tMOVHPD (R11)(R12*8), X9") // the two D_j
	p("\tADDPD X9, X10")           // dd = D + h·gx·gx
	p("\tMINPD X15, X10")          // dd < MaxFloat64 ? dd : MaxFloat64, NaN included
	p("\tMOVSD X10, (BX)(R12*8)")
	p("\tMOVHPD X10, (R11)(R12*8)") // D = dd
	p("\tADDPD X14, X10")           // d0 + dd
	p("\tSQRTPD X10, X10")
	p("\tMOVUPD ojaOne<>(SB), X9")
	p("\tDIVPD X10, X9") // r = 1/√(d0 + dd)
	p("\tMOVSD X9, 8(BX)(R12*8)")
	p("\tMOVHPD X9, 8(R11)(R12*8)")
	p("\tMULPD X9, X8") // x·r
	p("\tMOVUPD X8, (R9)(AX*8)")
	p("\tMOVAPD X8, X9")
	p("\tMULPD X8, X9")
	p("\tADDSD X9, X11") // n += x₀²
	p("\tUNPCKHPD X9, X9")
	p("\tADDSD X9, X11") // n += x₁²
	if n > 0 {
		p("\tMOVAPD X8, X10")
		p("\tUNPCKLPD X10, X10")
		lanesOf(n, false, "X10", "BX")
		p("\tUNPCKHPD X8, X8")
		lanesOf(n, false, "X8", "R11")
	}
}

// rescaleGather's loop takes two features at a time where it can: their
// square roots and divisions as one SQRTPD and one DIVPD (SSE2 computes
// each lane as the scalar instruction would, and the packed forms take
// about the time of one scalar one: a pair of 1/√ cost 3.5 ns per
// feature against 6.5 scalar). Two features with the same row (hash
// collisions) go one at a time, since the second reads the D_j the first
// writes. The lanes are then summed feature by feature, in order.
func rescaleGather(n int) {
	name := fmt.Sprintf("rg%d", n)
	p("// func rescaleGather%d(z, rows []float64, offs []int, val, xt []float64, dOff, lim int, d, h, d0 float64) (n float64, ok bool)", n)
	p("TEXT ·rescaleGather%d(SB), NOSPLIT, $0-169", n)
	gatherArgs()
	p("\tMOVQ dOff+120(FP), R12")
	p("\tMOVQ lim+128(FP), R10")
	p("\tMOVSD d+136(FP), X12")
	p("\tUNPCKLPD X12, X12")
	p("\tMOVSD h+144(FP), X13")
	p("\tUNPCKLPD X13, X13")
	p("\tMOVSD d0+152(FP), X14")
	p("\tUNPCKLPD X14, X14")
	p("\tMOVUPD ojaMax<>(SB), X15")
	zero(n)
	p("\tXORPS X11, X11")
	p("\tXORQ AX, AX")
	p("%sloop:", name)
	p("\tLEAQ 1(AX), DX")
	p("\tCMPQ DX, CX")
	p("\tJGE  %sone", name) // fewer than two left
	p("\tMOVQ (R8)(AX*8), DX")
	p("\tCMPQ DX, R10")
	p("\tJHI  %sfail", name)
	p("\tMOVQ 8(R8)(AX*8), R14")
	p("\tCMPQ R14, R10")
	p("\tJHI  %sfail", name)
	p("\tCMPQ DX, R14")
	p("\tJEQ  %sone", name) // the same row twice
	rescalePair(n)
	p("\tADDQ $2, AX")
	p("\tJMP  %sloop", name)
	p("%sone:", name) // one feature
	p("\tCMPQ AX, CX")
	p("\tJGE  %sdone", name)
	column(name + "fail")
	p("\tMOVSD (R13)(AX*8), X8")
	p("\tMOVAPD X8, X9")
	p("\tMULSD X12, X9")
	p("\tMOVAPD X9, X10")
	p("\tMULSD X13, X10")
	p("\tMULSD X9, X10")
	p("\tADDSD (BX)(R12*8), X10")
	p("\tMINSD X15, X10")
	p("\tMOVSD X10, (BX)(R12*8)")
	p("\tADDSD X14, X10")
	p("\tSQRTSD X10, X10")
	p("\tMOVSD ojaOne<>(SB), X9")
	p("\tDIVSD X10, X9")
	p("\tMOVSD X9, 8(BX)(R12*8)")
	p("\tMULSD X9, X8")
	p("\tMOVSD X8, (R9)(AX*8)")
	p("\tMOVAPD X8, X9")
	p("\tMULSD X8, X9")
	p("\tADDSD X9, X11")
	if n > 0 {
		p("\tUNPCKLPD X8, X8")
	}
	lanes(n, false)
	p("\tINCQ AX")
	p("\tJMP  %sloop", name)
	p("%sdone:", name)
	store(n)
	p("\tMOVSD X11, n+160(FP)")
	p("\tMOVB $1, ok+168(FP)")
	p("\tRET")
	p("%sfail:", name)
	p("\tMOVB $0, ok+168(FP)")
	p("\tRET")
	p("")
}

func absorbScatter(n int) {
	name := fmt.Sprintf("as%d", n)
	p("// func absorbScatter%d(rows []float64, offs []int, xt, delta []float64, lim int, c, f, cb float64, pend bool) (wx, sq float64, ok bool)", n)
	p("TEXT ·absorbScatter%d(SB), NOSPLIT, $0-153", n)
	p("\tMOVQ rows_base+0(FP), SI")
	p("\tMOVQ offs_base+24(FP), R8")
	p("\tMOVQ offs_len+32(FP), CX")
	p("\tMOVQ xt_base+48(FP), R9")
	p("\tMOVQ delta_base+72(FP), DI")
	p("\tMOVQ lim+96(FP), R10")
	p("\tMOVSD f+112(FP), X15")
	loadDelta(n)
	p("\tXORPS X13, X13")
	p("\tXORPS X14, X14")
	p("\tXORQ AX, AX")
	p("\tTESTQ CX, CX")
	p("\tJE   %sdone", name)
	p("\tCMPB pend+128(FP), $0")
	p("\tJE   %sloop", name)
	for _, pend := range []bool{true, false} {
		loop := name + "loop"
		if pend {
			loop = name + "ploop"
		}
		p("%s:", loop)
		column(name + "fail")
		p("\tMOVSD (R9)(AX*8), X11") // x
		p("\tMOVSD (BX), X12")       // w̄_j
		if pend {
			p("\tMOVAPD X11, X9")
			p("\tMULSD X15, X9")
			p("\tSUBSD X9, X12") // w̄_j − f·x
		}
		p("\tMOVAPD X12, X9")
		p("\tMULSD X11, X9")
		p("\tADDSD X9, X13") // wx += w·x
		p("\tMOVAPD X11, X9")
		p("\tMULSD cb+120(FP), X9")
		p("\tSUBSD X9, X12") // w −= cb·x
		p("\tMOVSD X12, (BX)")
		p("\tMULSD X12, X12")
		p("\tADDSD X12, X14") // sq += w·w
		if n > 0 {
			p("\tMOVAPD X11, X8")
			p("\tMULSD c+104(FP), X8") // a = c·x
			p("\tUNPCKLPD X8, X8")
		}
		lanes(n, true)
		next(loop)
		if pend {
			p("\tJMP  %sdone", name)
		}
	}
	p("%sdone:", name)
	p("\tMOVSD X13, wx+136(FP)")
	p("\tMOVSD X14, sq+144(FP)")
	p("\tMOVB $1, ok+152(FP)")
	p("\tRET")
	p("%sfail:", name)
	p("\tMOVB $0, ok+152(FP)")
	p("\tRET")
	p("")
}

func main() {
	p("// Code generated by go run oja_gen.go; DO NOT EDIT.")
	p("")
	p("//go:build !purego")
	p("")
	p("#include \"textflag.h\"")
	p("")
	p("// Both lanes: MaxFloat64 (D's saturation) and 1.")
	p("DATA ojaMax<>+0(SB)/8, $0x7FEFFFFFFFFFFFFF")
	p("DATA ojaMax<>+8(SB)/8, $0x7FEFFFFFFFFFFFFF")
	p("GLOBL ojaMax<>(SB), RODATA|NOPTR, $16")
	p("DATA ojaOne<>+0(SB)/8, $1.0")
	p("DATA ojaOne<>+8(SB)/8, $1.0")
	p("GLOBL ojaOne<>(SB), RODATA|NOPTR, $16")
	p("")
	p("// The kernels of ScaleGather, RescaleGather and AbsorbScatter (oja_fused.go)")
	p("// for a block of n = 0…16 lanes of z (or δ): the example's per-feature")
	p("// scalar work and the lanes' sums (or updates) in one pass over its")
	p("// columns, each value in the order of the Go loops, with every product")
	p("// rounded before its sum (no fused multiply-add). Each offset is checked")
	p("// (unsigned o ≤ lim, which also refuses o < 0) before it is read: the")
	p("// kernel returns ok = false at the first one out of range.")
	p("")
	for n := 0; n <= 16; n++ {
		scaleGather(n)
	}
	for n := 0; n <= 16; n++ {
		rescaleGather(n)
	}
	for n := 0; n <= 16; n++ {
		absorbScatter(n)
	}
	os.Stdout.WriteString(b.String())
}

// gatherArgs loads the arguments scaleGather and rescaleGather share (z,
// rows, offs, val, xt: the same frame offsets in both signatures).
func gatherArgs() {
	p("\tMOVQ z_base+0(FP), DI")
	p("\tMOVQ rows_base+24(FP), SI")
	p("\tMOVQ offs_base+48(FP), R8")
	p("\tMOVQ offs_len+56(FP), CX")
	p("\tMOVQ val_base+72(FP), R13")
	p("\tMOVQ xt_base+96(FP), R9")
}
