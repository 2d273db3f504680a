//go:build !purego

#include "textflag.h"

// The kernels of GatherCols and ScatterCols for a block of n = 1…16
// values of z (or d), ⌊n/2⌋ registers of two lanes and, for odd n, one
// scalar; a lane is one value, so
// each value's sum runs over the columns in order, with the product
// rounded before the sum (no fused multiply-add): the bits of the Go
// loops in cols.go. Each column's offset o is checked before it is read
// (unsigned o ≤ len(rows) − n, which also refuses o < 0): the kernel
// returns false at the first one out of range, before touching it.

// GBEGIN(n) loads the arguments, zeroes the accumulators X0–X7 and sets
// R10 = len(rows) − n, the largest offset whose column fits.
#define GBEGIN(n) \
	MOVQ z_base+0(FP), DI \
	MOVQ rows_base+24(FP), SI \
	MOVQ rows_len+32(FP), R10 \
	SUBQ $n, R10 \
	MOVQ offs_base+48(FP), R8 \
	MOVQ offs_len+56(FP), CX \
	MOVQ xt_base+72(FP), R9 \
	XORPS X0, X0 \
	XORPS X1, X1 \
	XORPS X2, X2 \
	XORPS X3, X3 \
	XORPS X4, X4 \
	XORPS X5, X5 \
	XORPS X6, X6 \
	XORPS X7, X7 \
	XORQ AX, AX

// GCOL(fail): DX = offs[k] (checked), X8 = xt[k] in both lanes,
// BX = &rows[offs[k]].
#define GCOL(fail) \
	MOVQ  (R8)(AX*8), DX \
	CMPQ  DX, R10 \
	JHI   fail \
	MOVSD (R9)(AX*8), X8 \
	UNPCKLPD X8, X8 \
	LEAQ  (SI)(DX*8), BX

// ACC(off, acc): acc += x·rows[o+off/8 : +2].
#define ACC(off, acc) \
	MOVUPD off(BX), X9 \
	MULPD  X8, X9 \
	ADDPD  X9, acc

// ACC1(off, acc): the same for the one value at off (odd n).
#define ACC1(off, acc) \
	MOVSD off(BX), X9 \
	MULSD X8, X9 \
	ADDSD X9, acc

// SBEGIN(n) loads the arguments: X15 = c, R10 as GBEGIN's, DI = &d[0].
#define SBEGIN(n) \
	MOVQ rows_base+0(FP), SI \
	MOVQ rows_len+8(FP), R10 \
	SUBQ $n, R10 \
	MOVQ offs_base+24(FP), R8 \
	MOVQ offs_len+32(FP), CX \
	MOVQ xt_base+48(FP), R9 \
	MOVSD c+72(FP), X15 \
	MOVQ d_base+80(FP), DI \
	XORQ AX, AX

// SCOL(fail): DX = offs[k] (checked), X8 = c·xt[k] (rounded) in both
// lanes, BX = &rows[offs[k]].
#define SCOL(fail) \
	MOVQ  (R8)(AX*8), DX \
	CMPQ  DX, R10 \
	JHI   fail \
	MOVSD (R9)(AX*8), X8 \
	MULSD X15, X8 \
	UNPCKLPD X8, X8 \
	LEAQ  (SI)(DX*8), BX

// UPD(off, d): rows[o+off/8 : +2] += a·d.
#define UPD(off, d) \
	MOVAPD X8, X9 \
	MULPD  d, X9 \
	MOVUPD off(BX), X10 \
	ADDPD  X9, X10 \
	MOVUPD X10, off(BX)

// UPD1(off, d): the same for the one value at off (odd n).
#define UPD1(off, d) \
	MOVSD X8, X9 \
	MULSD d, X9 \
	MOVSD off(BX), X10 \
	ADDSD X9, X10 \
	MOVSD X10, off(BX)



// func gather1(z, rows []float64, offs []int, xt []float64) (ok bool)
TEXT ·gather1(SB), NOSPLIT, $0-97
	GBEGIN(1)
	TESTQ CX, CX
	JE    g1done
g1loop:
	GCOL(g1fail)
	ACC1(0, X0)
	INCQ AX
	CMPQ AX, CX
	JLT  g1loop
g1done:
	MOVSD X0, 0(DI)
	MOVB $1, ok+96(FP)
	RET
g1fail:
	MOVB $0, ok+96(FP)
	RET

// func gather2(z, rows []float64, offs []int, xt []float64) (ok bool)
TEXT ·gather2(SB), NOSPLIT, $0-97
	GBEGIN(2)
	TESTQ CX, CX
	JE    g2done
g2loop:
	GCOL(g2fail)
	ACC(0, X0)
	INCQ AX
	CMPQ AX, CX
	JLT  g2loop
g2done:
	MOVUPD X0, 0(DI)
	MOVB $1, ok+96(FP)
	RET
g2fail:
	MOVB $0, ok+96(FP)
	RET

// func gather3(z, rows []float64, offs []int, xt []float64) (ok bool)
TEXT ·gather3(SB), NOSPLIT, $0-97
	GBEGIN(3)
	TESTQ CX, CX
	JE    g3done
g3loop:
	GCOL(g3fail)
	ACC(0, X0)
	ACC1(16, X1)
	INCQ AX
	CMPQ AX, CX
	JLT  g3loop
g3done:
	MOVUPD X0, 0(DI)
	MOVSD X1, 16(DI)
	MOVB $1, ok+96(FP)
	RET
g3fail:
	MOVB $0, ok+96(FP)
	RET

// func gather4(z, rows []float64, offs []int, xt []float64) (ok bool)
TEXT ·gather4(SB), NOSPLIT, $0-97
	GBEGIN(4)
	TESTQ CX, CX
	JE    g4done
g4loop:
	GCOL(g4fail)
	ACC(0, X0)
	ACC(16, X1)
	INCQ AX
	CMPQ AX, CX
	JLT  g4loop
g4done:
	MOVUPD X0, 0(DI)
	MOVUPD X1, 16(DI)
	MOVB $1, ok+96(FP)
	RET
g4fail:
	MOVB $0, ok+96(FP)
	RET

// func gather5(z, rows []float64, offs []int, xt []float64) (ok bool)
TEXT ·gather5(SB), NOSPLIT, $0-97
	GBEGIN(5)
	TESTQ CX, CX
	JE    g5done
g5loop:
	GCOL(g5fail)
	ACC(0, X0)
	ACC(16, X1)
	ACC1(32, X2)
	INCQ AX
	CMPQ AX, CX
	JLT  g5loop
g5done:
	MOVUPD X0, 0(DI)
	MOVUPD X1, 16(DI)
	MOVSD X2, 32(DI)
	MOVB $1, ok+96(FP)
	RET
g5fail:
	MOVB $0, ok+96(FP)
	RET

// func gather6(z, rows []float64, offs []int, xt []float64) (ok bool)
TEXT ·gather6(SB), NOSPLIT, $0-97
	GBEGIN(6)
	TESTQ CX, CX
	JE    g6done
g6loop:
	GCOL(g6fail)
	ACC(0, X0)
	ACC(16, X1)
	ACC(32, X2)
	INCQ AX
	CMPQ AX, CX
	JLT  g6loop
g6done:
	MOVUPD X0, 0(DI)
	MOVUPD X1, 16(DI)
	MOVUPD X2, 32(DI)
	MOVB $1, ok+96(FP)
	RET
g6fail:
	MOVB $0, ok+96(FP)
	RET

// func gather7(z, rows []float64, offs []int, xt []float64) (ok bool)
TEXT ·gather7(SB), NOSPLIT, $0-97
	GBEGIN(7)
	TESTQ CX, CX
	JE    g7done
g7loop:
	GCOL(g7fail)
	ACC(0, X0)
	ACC(16, X1)
	ACC(32, X2)
	ACC1(48, X3)
	INCQ AX
	CMPQ AX, CX
	JLT  g7loop
g7done:
	MOVUPD X0, 0(DI)
	MOVUPD X1, 16(DI)
	MOVUPD X2, 32(DI)
	MOVSD X3, 48(DI)
	MOVB $1, ok+96(FP)
	RET
g7fail:
	MOVB $0, ok+96(FP)
	RET

// func gather8(z, rows []float64, offs []int, xt []float64) (ok bool)
TEXT ·gather8(SB), NOSPLIT, $0-97
	GBEGIN(8)
	TESTQ CX, CX
	JE    g8done
g8loop:
	GCOL(g8fail)
	ACC(0, X0)
	ACC(16, X1)
	ACC(32, X2)
	ACC(48, X3)
	INCQ AX
	CMPQ AX, CX
	JLT  g8loop
g8done:
	MOVUPD X0, 0(DI)
	MOVUPD X1, 16(DI)
	MOVUPD X2, 32(DI)
	MOVUPD X3, 48(DI)
	MOVB $1, ok+96(FP)
	RET
g8fail:
	MOVB $0, ok+96(FP)
	RET

// func gather9(z, rows []float64, offs []int, xt []float64) (ok bool)
TEXT ·gather9(SB), NOSPLIT, $0-97
	GBEGIN(9)
	TESTQ CX, CX
	JE    g9done
g9loop:
	GCOL(g9fail)
	ACC(0, X0)
	ACC(16, X1)
	ACC(32, X2)
	ACC(48, X3)
	ACC1(64, X4)
	INCQ AX
	CMPQ AX, CX
	JLT  g9loop
g9done:
	MOVUPD X0, 0(DI)
	MOVUPD X1, 16(DI)
	MOVUPD X2, 32(DI)
	MOVUPD X3, 48(DI)
	MOVSD X4, 64(DI)
	MOVB $1, ok+96(FP)
	RET
g9fail:
	MOVB $0, ok+96(FP)
	RET

// func gather10(z, rows []float64, offs []int, xt []float64) (ok bool)
TEXT ·gather10(SB), NOSPLIT, $0-97
	GBEGIN(10)
	TESTQ CX, CX
	JE    g10done
g10loop:
	GCOL(g10fail)
	ACC(0, X0)
	ACC(16, X1)
	ACC(32, X2)
	ACC(48, X3)
	ACC(64, X4)
	INCQ AX
	CMPQ AX, CX
	JLT  g10loop
g10done:
	MOVUPD X0, 0(DI)
	MOVUPD X1, 16(DI)
	MOVUPD X2, 32(DI)
	MOVUPD X3, 48(DI)
	MOVUPD X4, 64(DI)
	MOVB $1, ok+96(FP)
	RET
g10fail:
	MOVB $0, ok+96(FP)
	RET

// func gather11(z, rows []float64, offs []int, xt []float64) (ok bool)
TEXT ·gather11(SB), NOSPLIT, $0-97
	GBEGIN(11)
	TESTQ CX, CX
	JE    g11done
g11loop:
	GCOL(g11fail)
	ACC(0, X0)
	ACC(16, X1)
	ACC(32, X2)
	ACC(48, X3)
	ACC(64, X4)
	ACC1(80, X5)
	INCQ AX
	CMPQ AX, CX
	JLT  g11loop
g11done:
	MOVUPD X0, 0(DI)
	MOVUPD X1, 16(DI)
	MOVUPD X2, 32(DI)
	MOVUPD X3, 48(DI)
	MOVUPD X4, 64(DI)
	MOVSD X5, 80(DI)
	MOVB $1, ok+96(FP)
	RET
g11fail:
	MOVB $0, ok+96(FP)
	RET

// func gather12(z, rows []float64, offs []int, xt []float64) (ok bool)
TEXT ·gather12(SB), NOSPLIT, $0-97
	GBEGIN(12)
	TESTQ CX, CX
	JE    g12done
g12loop:
	GCOL(g12fail)
	ACC(0, X0)
	ACC(16, X1)
	ACC(32, X2)
	ACC(48, X3)
	ACC(64, X4)
	ACC(80, X5)
	INCQ AX
	CMPQ AX, CX
	JLT  g12loop
g12done:
	MOVUPD X0, 0(DI)
	MOVUPD X1, 16(DI)
	MOVUPD X2, 32(DI)
	MOVUPD X3, 48(DI)
	MOVUPD X4, 64(DI)
	MOVUPD X5, 80(DI)
	MOVB $1, ok+96(FP)
	RET
g12fail:
	MOVB $0, ok+96(FP)
	RET

// func gather13(z, rows []float64, offs []int, xt []float64) (ok bool)
TEXT ·gather13(SB), NOSPLIT, $0-97
	GBEGIN(13)
	TESTQ CX, CX
	JE    g13done
g13loop:
	GCOL(g13fail)
	ACC(0, X0)
	ACC(16, X1)
	ACC(32, X2)
	ACC(48, X3)
	ACC(64, X4)
	ACC(80, X5)
	ACC1(96, X6)
	INCQ AX
	CMPQ AX, CX
	JLT  g13loop
g13done:
	MOVUPD X0, 0(DI)
	MOVUPD X1, 16(DI)
	MOVUPD X2, 32(DI)
	MOVUPD X3, 48(DI)
	MOVUPD X4, 64(DI)
	MOVUPD X5, 80(DI)
	MOVSD X6, 96(DI)
	MOVB $1, ok+96(FP)
	RET
g13fail:
	MOVB $0, ok+96(FP)
	RET

// func gather14(z, rows []float64, offs []int, xt []float64) (ok bool)
TEXT ·gather14(SB), NOSPLIT, $0-97
	GBEGIN(14)
	TESTQ CX, CX
	JE    g14done
g14loop:
	GCOL(g14fail)
	ACC(0, X0)
	ACC(16, X1)
	ACC(32, X2)
	ACC(48, X3)
	ACC(64, X4)
	ACC(80, X5)
	ACC(96, X6)
	INCQ AX
	CMPQ AX, CX
	JLT  g14loop
g14done:
	MOVUPD X0, 0(DI)
	MOVUPD X1, 16(DI)
	MOVUPD X2, 32(DI)
	MOVUPD X3, 48(DI)
	MOVUPD X4, 64(DI)
	MOVUPD X5, 80(DI)
	MOVUPD X6, 96(DI)
	MOVB $1, ok+96(FP)
	RET
g14fail:
	MOVB $0, ok+96(FP)
	RET

// func gather15(z, rows []float64, offs []int, xt []float64) (ok bool)
TEXT ·gather15(SB), NOSPLIT, $0-97
	GBEGIN(15)
	TESTQ CX, CX
	JE    g15done
g15loop:
	GCOL(g15fail)
	ACC(0, X0)
	ACC(16, X1)
	ACC(32, X2)
	ACC(48, X3)
	ACC(64, X4)
	ACC(80, X5)
	ACC(96, X6)
	ACC1(112, X7)
	INCQ AX
	CMPQ AX, CX
	JLT  g15loop
g15done:
	MOVUPD X0, 0(DI)
	MOVUPD X1, 16(DI)
	MOVUPD X2, 32(DI)
	MOVUPD X3, 48(DI)
	MOVUPD X4, 64(DI)
	MOVUPD X5, 80(DI)
	MOVUPD X6, 96(DI)
	MOVSD X7, 112(DI)
	MOVB $1, ok+96(FP)
	RET
g15fail:
	MOVB $0, ok+96(FP)
	RET

// func gather16(z, rows []float64, offs []int, xt []float64) (ok bool)
TEXT ·gather16(SB), NOSPLIT, $0-97
	GBEGIN(16)
	TESTQ CX, CX
	JE    g16done
g16loop:
	GCOL(g16fail)
	ACC(0, X0)
	ACC(16, X1)
	ACC(32, X2)
	ACC(48, X3)
	ACC(64, X4)
	ACC(80, X5)
	ACC(96, X6)
	ACC(112, X7)
	INCQ AX
	CMPQ AX, CX
	JLT  g16loop
g16done:
	MOVUPD X0, 0(DI)
	MOVUPD X1, 16(DI)
	MOVUPD X2, 32(DI)
	MOVUPD X3, 48(DI)
	MOVUPD X4, 64(DI)
	MOVUPD X5, 80(DI)
	MOVUPD X6, 96(DI)
	MOVUPD X7, 112(DI)
	MOVB $1, ok+96(FP)
	RET
g16fail:
	MOVB $0, ok+96(FP)
	RET

// func scatter1(rows []float64, offs []int, xt []float64, c float64, d []float64) (ok bool)
TEXT ·scatter1(SB), NOSPLIT, $0-105
	SBEGIN(1)
	MOVSD 0(DI), X0
	TESTQ CX, CX
	JE    s1done
s1loop:
	SCOL(s1fail)
	UPD1(0, X0)
	INCQ AX
	CMPQ AX, CX
	JLT  s1loop
s1done:
	MOVB $1, ok+104(FP)
	RET
s1fail:
	MOVB $0, ok+104(FP)
	RET

// func scatter2(rows []float64, offs []int, xt []float64, c float64, d []float64) (ok bool)
TEXT ·scatter2(SB), NOSPLIT, $0-105
	SBEGIN(2)
	MOVUPD 0(DI), X0
	TESTQ CX, CX
	JE    s2done
s2loop:
	SCOL(s2fail)
	UPD(0, X0)
	INCQ AX
	CMPQ AX, CX
	JLT  s2loop
s2done:
	MOVB $1, ok+104(FP)
	RET
s2fail:
	MOVB $0, ok+104(FP)
	RET

// func scatter3(rows []float64, offs []int, xt []float64, c float64, d []float64) (ok bool)
TEXT ·scatter3(SB), NOSPLIT, $0-105
	SBEGIN(3)
	MOVUPD 0(DI), X0
	MOVSD 16(DI), X1
	TESTQ CX, CX
	JE    s3done
s3loop:
	SCOL(s3fail)
	UPD(0, X0)
	UPD1(16, X1)
	INCQ AX
	CMPQ AX, CX
	JLT  s3loop
s3done:
	MOVB $1, ok+104(FP)
	RET
s3fail:
	MOVB $0, ok+104(FP)
	RET

// func scatter4(rows []float64, offs []int, xt []float64, c float64, d []float64) (ok bool)
TEXT ·scatter4(SB), NOSPLIT, $0-105
	SBEGIN(4)
	MOVUPD 0(DI), X0
	MOVUPD 16(DI), X1
	TESTQ CX, CX
	JE    s4done
s4loop:
	SCOL(s4fail)
	UPD(0, X0)
	UPD(16, X1)
	INCQ AX
	CMPQ AX, CX
	JLT  s4loop
s4done:
	MOVB $1, ok+104(FP)
	RET
s4fail:
	MOVB $0, ok+104(FP)
	RET

// func scatter5(rows []float64, offs []int, xt []float64, c float64, d []float64) (ok bool)
TEXT ·scatter5(SB), NOSPLIT, $0-105
	SBEGIN(5)
	MOVUPD 0(DI), X0
	MOVUPD 16(DI), X1
	MOVSD 32(DI), X2
	TESTQ CX, CX
	JE    s5done
s5loop:
	SCOL(s5fail)
	UPD(0, X0)
	UPD(16, X1)
	UPD1(32, X2)
	INCQ AX
	CMPQ AX, CX
	JLT  s5loop
s5done:
	MOVB $1, ok+104(FP)
	RET
s5fail:
	MOVB $0, ok+104(FP)
	RET

// func scatter6(rows []float64, offs []int, xt []float64, c float64, d []float64) (ok bool)
TEXT ·scatter6(SB), NOSPLIT, $0-105
	SBEGIN(6)
	MOVUPD 0(DI), X0
	MOVUPD 16(DI), X1
	MOVUPD 32(DI), X2
	TESTQ CX, CX
	JE    s6done
s6loop:
	SCOL(s6fail)
	UPD(0, X0)
	UPD(16, X1)
	UPD(32, X2)
	INCQ AX
	CMPQ AX, CX
	JLT  s6loop
s6done:
	MOVB $1, ok+104(FP)
	RET
s6fail:
	MOVB $0, ok+104(FP)
	RET

// func scatter7(rows []float64, offs []int, xt []float64, c float64, d []float64) (ok bool)
TEXT ·scatter7(SB), NOSPLIT, $0-105
	SBEGIN(7)
	MOVUPD 0(DI), X0
	MOVUPD 16(DI), X1
	MOVUPD 32(DI), X2
	MOVSD 48(DI), X3
	TESTQ CX, CX
	JE    s7done
s7loop:
	SCOL(s7fail)
	UPD(0, X0)
	UPD(16, X1)
	UPD(32, X2)
	UPD1(48, X3)
	INCQ AX
	CMPQ AX, CX
	JLT  s7loop
s7done:
	MOVB $1, ok+104(FP)
	RET
s7fail:
	MOVB $0, ok+104(FP)
	RET

// func scatter8(rows []float64, offs []int, xt []float64, c float64, d []float64) (ok bool)
TEXT ·scatter8(SB), NOSPLIT, $0-105
	SBEGIN(8)
	MOVUPD 0(DI), X0
	MOVUPD 16(DI), X1
	MOVUPD 32(DI), X2
	MOVUPD 48(DI), X3
	TESTQ CX, CX
	JE    s8done
s8loop:
	SCOL(s8fail)
	UPD(0, X0)
	UPD(16, X1)
	UPD(32, X2)
	UPD(48, X3)
	INCQ AX
	CMPQ AX, CX
	JLT  s8loop
s8done:
	MOVB $1, ok+104(FP)
	RET
s8fail:
	MOVB $0, ok+104(FP)
	RET

// func scatter9(rows []float64, offs []int, xt []float64, c float64, d []float64) (ok bool)
TEXT ·scatter9(SB), NOSPLIT, $0-105
	SBEGIN(9)
	MOVUPD 0(DI), X0
	MOVUPD 16(DI), X1
	MOVUPD 32(DI), X2
	MOVUPD 48(DI), X3
	MOVSD 64(DI), X4
	TESTQ CX, CX
	JE    s9done
s9loop:
	SCOL(s9fail)
	UPD(0, X0)
	UPD(16, X1)
	UPD(32, X2)
	UPD(48, X3)
	UPD1(64, X4)
	INCQ AX
	CMPQ AX, CX
	JLT  s9loop
s9done:
	MOVB $1, ok+104(FP)
	RET
s9fail:
	MOVB $0, ok+104(FP)
	RET

// func scatter10(rows []float64, offs []int, xt []float64, c float64, d []float64) (ok bool)
TEXT ·scatter10(SB), NOSPLIT, $0-105
	SBEGIN(10)
	MOVUPD 0(DI), X0
	MOVUPD 16(DI), X1
	MOVUPD 32(DI), X2
	MOVUPD 48(DI), X3
	MOVUPD 64(DI), X4
	TESTQ CX, CX
	JE    s10done
s10loop:
	SCOL(s10fail)
	UPD(0, X0)
	UPD(16, X1)
	UPD(32, X2)
	UPD(48, X3)
	UPD(64, X4)
	INCQ AX
	CMPQ AX, CX
	JLT  s10loop
s10done:
	MOVB $1, ok+104(FP)
	RET
s10fail:
	MOVB $0, ok+104(FP)
	RET

// func scatter11(rows []float64, offs []int, xt []float64, c float64, d []float64) (ok bool)
TEXT ·scatter11(SB), NOSPLIT, $0-105
	SBEGIN(11)
	MOVUPD 0(DI), X0
	MOVUPD 16(DI), X1
	MOVUPD 32(DI), X2
	MOVUPD 48(DI), X3
	MOVUPD 64(DI), X4
	MOVSD 80(DI), X5
	TESTQ CX, CX
	JE    s11done
s11loop:
	SCOL(s11fail)
	UPD(0, X0)
	UPD(16, X1)
	UPD(32, X2)
	UPD(48, X3)
	UPD(64, X4)
	UPD1(80, X5)
	INCQ AX
	CMPQ AX, CX
	JLT  s11loop
s11done:
	MOVB $1, ok+104(FP)
	RET
s11fail:
	MOVB $0, ok+104(FP)
	RET

// func scatter12(rows []float64, offs []int, xt []float64, c float64, d []float64) (ok bool)
TEXT ·scatter12(SB), NOSPLIT, $0-105
	SBEGIN(12)
	MOVUPD 0(DI), X0
	MOVUPD 16(DI), X1
	MOVUPD 32(DI), X2
	MOVUPD 48(DI), X3
	MOVUPD 64(DI), X4
	MOVUPD 80(DI), X5
	TESTQ CX, CX
	JE    s12done
s12loop:
	SCOL(s12fail)
	UPD(0, X0)
	UPD(16, X1)
	UPD(32, X2)
	UPD(48, X3)
	UPD(64, X4)
	UPD(80, X5)
	INCQ AX
	CMPQ AX, CX
	JLT  s12loop
s12done:
	MOVB $1, ok+104(FP)
	RET
s12fail:
	MOVB $0, ok+104(FP)
	RET

// func scatter13(rows []float64, offs []int, xt []float64, c float64, d []float64) (ok bool)
TEXT ·scatter13(SB), NOSPLIT, $0-105
	SBEGIN(13)
	MOVUPD 0(DI), X0
	MOVUPD 16(DI), X1
	MOVUPD 32(DI), X2
	MOVUPD 48(DI), X3
	MOVUPD 64(DI), X4
	MOVUPD 80(DI), X5
	MOVSD 96(DI), X6
	TESTQ CX, CX
	JE    s13done
s13loop:
	SCOL(s13fail)
	UPD(0, X0)
	UPD(16, X1)
	UPD(32, X2)
	UPD(48, X3)
	UPD(64, X4)
	UPD(80, X5)
	UPD1(96, X6)
	INCQ AX
	CMPQ AX, CX
	JLT  s13loop
s13done:
	MOVB $1, ok+104(FP)
	RET
s13fail:
	MOVB $0, ok+104(FP)
	RET

// func scatter14(rows []float64, offs []int, xt []float64, c float64, d []float64) (ok bool)
TEXT ·scatter14(SB), NOSPLIT, $0-105
	SBEGIN(14)
	MOVUPD 0(DI), X0
	MOVUPD 16(DI), X1
	MOVUPD 32(DI), X2
	MOVUPD 48(DI), X3
	MOVUPD 64(DI), X4
	MOVUPD 80(DI), X5
	MOVUPD 96(DI), X6
	TESTQ CX, CX
	JE    s14done
s14loop:
	SCOL(s14fail)
	UPD(0, X0)
	UPD(16, X1)
	UPD(32, X2)
	UPD(48, X3)
	UPD(64, X4)
	UPD(80, X5)
	UPD(96, X6)
	INCQ AX
	CMPQ AX, CX
	JLT  s14loop
s14done:
	MOVB $1, ok+104(FP)
	RET
s14fail:
	MOVB $0, ok+104(FP)
	RET

// func scatter15(rows []float64, offs []int, xt []float64, c float64, d []float64) (ok bool)
TEXT ·scatter15(SB), NOSPLIT, $0-105
	SBEGIN(15)
	MOVUPD 0(DI), X0
	MOVUPD 16(DI), X1
	MOVUPD 32(DI), X2
	MOVUPD 48(DI), X3
	MOVUPD 64(DI), X4
	MOVUPD 80(DI), X5
	MOVUPD 96(DI), X6
	MOVSD 112(DI), X7
	TESTQ CX, CX
	JE    s15done
s15loop:
	SCOL(s15fail)
	UPD(0, X0)
	UPD(16, X1)
	UPD(32, X2)
	UPD(48, X3)
	UPD(64, X4)
	UPD(80, X5)
	UPD(96, X6)
	UPD1(112, X7)
	INCQ AX
	CMPQ AX, CX
	JLT  s15loop
s15done:
	MOVB $1, ok+104(FP)
	RET
s15fail:
	MOVB $0, ok+104(FP)
	RET

// func scatter16(rows []float64, offs []int, xt []float64, c float64, d []float64) (ok bool)
TEXT ·scatter16(SB), NOSPLIT, $0-105
	SBEGIN(16)
	MOVUPD 0(DI), X0
	MOVUPD 16(DI), X1
	MOVUPD 32(DI), X2
	MOVUPD 48(DI), X3
	MOVUPD 64(DI), X4
	MOVUPD 80(DI), X5
	MOVUPD 96(DI), X6
	MOVUPD 112(DI), X7
	TESTQ CX, CX
	JE    s16done
s16loop:
	SCOL(s16fail)
	UPD(0, X0)
	UPD(16, X1)
	UPD(32, X2)
	UPD(48, X3)
	UPD(64, X4)
	UPD(80, X5)
	UPD(96, X6)
	UPD(112, X7)
	INCQ AX
	CMPQ AX, CX
	JLT  s16loop
s16done:
	MOVB $1, ok+104(FP)
	RET
s16fail:
	MOVB $0, ok+104(FP)
	RET

// func prefetchLines(rows []float64, offs []int, size int)
//
// A row of 65 to 128 bytes (SON's at m = 6…13 with pre-scaling) has its
// lines at its first byte, 64 bytes on and its last byte: three
// prefetches, without the loop over lines (17 instructions a row with
// it, 10 without, for Oja-SON's 104-byte rows at m = 10).
TEXT ·prefetchLines(SB), NOSPLIT, $0-56
	MOVQ rows_base+0(FP), SI
	MOVQ offs_base+24(FP), R8
	MOVQ offs_len+32(FP), CX
	MOVQ size+48(FP), R10
	XORQ AX, AX
	TESTQ CX, CX
	JE    pdone
	CMPQ  R10, $128
	JHI   ploop
	CMPQ  R10, $64
	JLS   ploop
sloop:
	MOVQ (R8)(AX*8), DX
	TESTQ DX, DX
	JL    snext
	LEAQ (SI)(DX*8), BX
	PREFETCHT0 (BX)
	PREFETCHT0 64(BX)
	PREFETCHT0 -1(BX)(R10*1)
snext:
	INCQ AX
	CMPQ AX, CX
	JLT  sloop
	RET
ploop:
	MOVQ (R8)(AX*8), DX
	TESTQ DX, DX
	JL    pnext // a feature without a row (a prediction's unseen ones)
	LEAQ (SI)(DX*8), BX
	XORQ R11, R11
pline:
	PREFETCHT0 (BX)(R11*1)
	ADDQ $64, R11
	CMPQ R11, R10
	JLT  pline
	PREFETCHT0 -1(BX)(R10*1)
pnext:
	INCQ AX
	CMPQ AX, CX
	JLT  ploop
pdone:
	RET
