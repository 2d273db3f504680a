//go:build !purego

#include "textflag.h"

// func fill4asm(tt *float64, u *float64, ldu, r int, cols *int, sc *float64) (zero bool)
//
// FormRows's coefficients for a block of four rows, in mulBlock4's layout:
// for j < r and k < 4, tt[8j+2k] = tt[8j+2k+1] = u[j·ldu + cols[k]]·sc[k]
// (MULSD: the product Go rounds). zero reports that some coefficient is
// zero (or NaN: UCOMISD sets ZF for unordered too), for the caller's
// general path. The caller checks every index.
TEXT ·fill4asm(SB), NOSPLIT, $0-49
	MOVQ tt+0(FP), DI
	MOVQ u+8(FP), SI
	MOVQ ldu+16(FP), DX
	SHLQ $3, DX
	MOVQ r+24(FP), CX
	MOVQ cols+32(FP), BX
	MOVQ 0(BX), R8
	MOVQ 8(BX), R9
	MOVQ 16(BX), R10
	MOVQ 24(BX), R11
	MOVQ sc+40(FP), BX
	MOVSD 0(BX), X8
	MOVSD 8(BX), X9
	MOVSD 16(BX), X10
	MOVSD 24(BX), X11
	XORPS X12, X12
	XORL  AX, AX
	XORL  BX, BX // SETEQ writes its low byte
	TESTQ CX, CX
	JEQ   done

loop:
	MOVSD    (SI)(R8*8), X0
	MULSD    X8, X0
	UCOMISD  X12, X0
	SETEQ    BX
	ORL      BX, AX
	UNPCKLPD X0, X0
	MOVUPD   X0, 0(DI)
	MOVSD    (SI)(R9*8), X1
	MULSD    X9, X1
	UCOMISD  X12, X1
	SETEQ    BX
	ORL      BX, AX
	UNPCKLPD X1, X1
	MOVUPD   X1, 16(DI)
	MOVSD    (SI)(R10*8), X2
	MULSD    X10, X2
	UCOMISD  X12, X2
	SETEQ    BX
	ORL      BX, AX
	UNPCKLPD X2, X2
	MOVUPD   X2, 32(DI)
	MOVSD    (SI)(R11*8), X3
	MULSD    X11, X3
	UCOMISD  X12, X3
	SETEQ    BX
	ORL      BX, AX
	UNPCKLPD X3, X3
	MOVUPD   X3, 48(DI)
	ADDQ     DX, SI
	ADDQ     $64, DI
	DECQ     CX
	JNZ      loop

done:
	MOVB AX, zero+48(FP)
	RET
