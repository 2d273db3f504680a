//go:build !purego

#include "textflag.h"

// func prefetchStaleLines(rows []float64, offs []int, size int, stamp []uint32, gen uint32, rowMul uint64, stale []int) int
//
// prefetchLines (cols_amd64.s) and the stamp check of staleGo in one loop
// over offs, for rows of 65 to 128 bytes (three prefetches: the first
// byte, 64 bytes on, the last byte) and rowMul ≠ 0 (the Go caller takes
// the other cases): for each o ≥ 0 the row's lines are prefetched, then
// r = hi(o·rowMul) and, unless r < len(stamp) and stamp[r] = gen, r is
// written to stale. Prefetches never fault; the stamp is read only below
// len(stamp) and stale (len(offs) values, the caller checks) only below
// the count of offsets.
TEXT ·prefetchStaleLines(SB), NOSPLIT, $0-128
	MOVQ rows_base+0(FP), SI
	MOVQ offs_base+24(FP), R8
	MOVQ offs_len+32(FP), CX
	LEAQ (R8)(CX*8), CX // the end of offs
	MOVQ size+48(FP), R10
	DECQ R10 // the row's last byte
	MOVQ stamp_base+56(FP), R12
	MOVQ stamp_len+64(FP), R13
	MOVL gen+80(FP), R11
	MOVQ stale_base+96(FP), DI
	XORQ R9, R9 // the count
	CMPQ R8, CX
	JEQ  done

loop:
	MOVQ  (R8), AX
	TESTQ AX, AX
	JL    next // a feature without a row
	LEAQ  (SI)(AX*8), DX
	PREFETCHT0 (DX)
	PREFETCHT0 64(DX)
	PREFETCHT0 (DX)(R10*1)
	MULQ  rowMul+88(FP) // DX:AX = o·rowMul, DX the row
	CMPQ  DX, R13
	JAE   isstale
	MOVL  (R12)(DX*4), AX
	CMPL  AX, R11
	JEQ   next

isstale:
	MOVQ DX, (DI)(R9*8)
	INCQ R9

next:
	ADDQ $8, R8
	CMPQ R8, CX
	JLT  loop

done:
	MOVQ R9, ret+120(FP)
	RET

// func prefetchStaleLong(rows []float64, offs []int, size int, stamp []uint32, gen uint32, rowMul uint64, stale []int) int
//
// prefetchStaleLines for rows longer than 128 bytes (size > 128): a
// prefetch every 64 bytes and one of the last byte.
TEXT ·prefetchStaleLong(SB), NOSPLIT, $0-128
	MOVQ rows_base+0(FP), SI
	MOVQ offs_base+24(FP), R8
	MOVQ offs_len+32(FP), CX
	LEAQ (R8)(CX*8), CX // the end of offs
	MOVQ size+48(FP), R10
	MOVQ stamp_base+56(FP), R12
	MOVQ stamp_len+64(FP), R13
	MOVL gen+80(FP), R11
	MOVQ stale_base+96(FP), DI
	XORQ R9, R9 // the count
	CMPQ R8, CX
	JEQ  ldone

lloop:
	MOVQ  (R8), AX
	TESTQ AX, AX
	JL    lnext // a feature without a row
	LEAQ  (SI)(AX*8), DX
	XORQ  BX, BX

lline:
	PREFETCHT0 (DX)(BX*1)
	ADDQ $64, BX
	CMPQ BX, R10
	JLT  lline
	PREFETCHT0 -1(DX)(R10*1)
	MULQ  rowMul+88(FP) // DX:AX = o·rowMul, DX the row
	CMPQ  DX, R13
	JAE   lstale
	MOVL  (R12)(DX*4), AX
	CMPL  AX, R11
	JEQ   lnext

lstale:
	MOVQ DX, (DI)(R9*8)
	INCQ R9

lnext:
	ADDQ $8, R8
	CMPQ R8, CX
	JLT  lloop

ldone:
	MOVQ R9, ret+120(FP)
	RET
