//go:build !purego

#include "textflag.h"

// func rmsScaleAsm(xt, val, rows []float64, offs []int, r, k int) (s float64, ok bool)
//
// xt[i] = val[i] / √(rows[j]/rows[j+1]) with j = offs[i]+r where
// rows[j+1] > 0, else +0, for i < len(offs) (len(xt), len(val) ≥
// len(offs): the Go caller slices them; len(rows) ≥ 2); with k ≥ 2,
// s = Σ_i rows[j+k]·xt[i], each product rounded and added in order.
// Pairs of features share DIVPD, SQRTPD, DIVPD; a lane without a count
// gives ÷0 or 0/0 there, which the mask (0 < n) turns into +0 as the
// scalar code's branch does. A lone last feature takes the scalar
// instructions. Each offset is checked before its row is read: j and
// j + max(k, 1) below len(rows), compared unsigned (a negative j fails).
TEXT ·rmsScaleAsm(SB), NOSPLIT, $0-121
	MOVQ xt_base+0(FP), DI
	MOVQ val_base+24(FP), SI
	MOVQ rows_base+48(FP), R8
	MOVQ rows_len+56(FP), R9
	MOVQ offs_base+72(FP), R10
	MOVQ offs_len+80(FP), CX
	MOVQ r+96(FP), R11
	MOVQ k+104(FP), R13
	MOVQ $1, BX
	CMPQ R13, BX
	CMOVQGT R13, BX
	SUBQ BX, R9 // j is good when j <u len(rows) − max(k, 1)
	XORPD X5, X5 // s
	XORQ AX, AX
	MOVQ CX, R12
	ANDQ $-2, R12 // the pairs' end

pair:
	CMPQ AX, R12
	JGE  lone
	MOVQ (R10)(AX*8), BX
	ADDQ R11, BX
	CMPQ BX, R9
	JAE  bad
	MOVQ 8(R10)(AX*8), DX
	ADDQ R11, DX
	CMPQ DX, R9
	JAE  bad
	MOVSD  (R8)(BX*8), X0
	MOVHPD (R8)(DX*8), X0  // Σx²
	MOVSD  8(R8)(BX*8), X1
	MOVHPD 8(R8)(DX*8), X1 // n
	XORPD  X2, X2
	CMPPD  X1, X2, $1      // 0 < n
	DIVPD  X1, X0
	SQRTPD X0, X0
	MOVUPD (SI)(AX*8), X3
	DIVPD  X0, X3
	ANDPD  X2, X3
	MOVUPD X3, (DI)(AX*8)
	ADDQ   $2, AX
	TESTQ  R13, R13
	JEQ    pair
	ADDQ   R13, BX
	ADDQ   R13, DX
	MOVSD  (R8)(BX*8), X4
	MULSD  X3, X4
	ADDSD  X4, X5
	UNPCKHPD X3, X3
	MOVSD  (R8)(DX*8), X4
	MULSD  X3, X4
	ADDSD  X4, X5
	JMP    pair

lone:
	CMPQ AX, CX
	JGE  done
	MOVQ (R10)(AX*8), BX
	ADDQ R11, BX
	CMPQ BX, R9
	JAE  bad
	MOVSD  (R8)(BX*8), X0
	MOVSD  8(R8)(BX*8), X1
	XORPD  X2, X2
	CMPPD  X1, X2, $1
	DIVSD  X1, X0
	SQRTSD X0, X0
	MOVSD  (SI)(AX*8), X3
	DIVSD  X0, X3
	ANDPD  X2, X3
	MOVSD  X3, (DI)(AX*8)
	TESTQ  R13, R13
	JEQ    done
	ADDQ   R13, BX
	MOVSD  (R8)(BX*8), X4
	MULSD  X3, X4
	ADDSD  X4, X5

done:
	MOVSD X5, s+112(FP)
	MOVB  $1, ok+120(FP)
	RET

bad:
	MOVB $0, ok+120(FP)
	RET
