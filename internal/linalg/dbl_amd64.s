//go:build !purego

#include "textflag.h"

// func refreshColAsm(row *float64, p int, a *float64, lda, m int, tmp *float64) int
//
// c = row[1:1+p] trimmed to n values (a value is zero when its bits
// shifted left by one are), then gonum GemvN's sums: rows four, two, one
// at a time; row i's register X(i) holds its even lane (low) and odd lane
// (high), four columns a step (X(i) += a[j:j+2]·c[j:j+2], then
// a[j+2:j+4]·c[j+2:j+4]), then a pair, then the lanes added low + high
// (as HADDPD), then the odd last column; the lone last row adds that
// column to its even lane first. MULPD then ADDPD, never FMA. Then the
// write-back into row.
TEXT ·refreshColAsm(SB), NOSPLIT, $0-56
	MOVQ row+0(FP), DI
	MOVQ p+8(FP), R10
	LEAQ 8(DI), BX

trim:
	CMPQ R10, $2
	JLT  trim1
	MOVQ -8(BX)(R10*8), AX
	ORQ  -16(BX)(R10*8), AX
	SHLQ $1, AX
	JNE  trim2
	SUBQ $2, R10
	JMP  trim

trim2:
	MOVQ -8(BX)(R10*8), AX
	SHLQ $1, AX
	JNE  trimmed
	DECQ R10
	JMP  trimmed

trim1:
	TESTQ R10, R10
	JE    zero
	MOVQ  (BX), AX
	SHLQ  $1, AX
	JNE   trimmed
	XORQ  R10, R10

zero:
	MOVSD (DI), X0
	XORPS X1, X1
	ADDSD X1, X0
	MOVSD X0, (DI)
	MOVQ  m+32(FP), CX
	MOVQ  $1, AX

zclr:
	CMPQ  AX, CX
	JGE   zret
	MOVSD X1, (DI)(AX*8)
	INCQ  AX
	JMP   zclr

zret:
	MOVQ $0, ret+48(FP)
	RET

trimmed:
	MOVQ a+16(FP), SI
	MOVQ lda+24(FP), DX
	SHLQ $3, DX
	LEAQ (DX)(DX*2), R8
	MOVQ m+32(FP), CX
	MOVQ tmp+40(FP), R11

r4:
	CMPQ  CX, $4
	JLT   r2
	XORPS X0, X0
	XORPS X1, X1
	XORPS X2, X2
	XORPS X3, X3
	MOVQ  SI, R13
	MOVQ  BX, AX
	MOVQ  R10, R9
	SHRQ  $2, R9
	JE    r4c2

r4c4:
	MOVUPS (AX), X12
	MOVUPS 16(AX), X13
	MOVUPS (R13), X4
	MOVUPS 16(R13), X5
	MOVUPS (R13)(DX*1), X6
	MOVUPS 16(R13)(DX*1), X7
	MOVUPS (R13)(DX*2), X8
	MOVUPS 16(R13)(DX*2), X9
	MOVUPS (R13)(R8*1), X10
	MOVUPS 16(R13)(R8*1), X11
	MULPD  X12, X4
	MULPD  X13, X5
	MULPD  X12, X6
	MULPD  X13, X7
	MULPD  X12, X8
	MULPD  X13, X9
	MULPD  X12, X10
	MULPD  X13, X11
	ADDPD  X4, X0
	ADDPD  X5, X0
	ADDPD  X6, X1
	ADDPD  X7, X1
	ADDPD  X8, X2
	ADDPD  X9, X2
	ADDPD  X10, X3
	ADDPD  X11, X3
	ADDQ   $32, R13
	ADDQ   $32, AX
	DECQ   R9
	JNE    r4c4

r4c2:
	TESTQ  $2, R10
	JE     r4c1
	MOVUPS (AX), X12
	MOVUPS (R13), X4
	MOVUPS (R13)(DX*1), X5
	MOVUPS (R13)(DX*2), X6
	MOVUPS (R13)(R8*1), X7
	MULPD  X12, X4
	MULPD  X12, X5
	MULPD  X12, X6
	MULPD  X12, X7
	ADDPD  X4, X0
	ADDPD  X5, X1
	ADDPD  X6, X2
	ADDPD  X7, X3
	ADDQ   $16, R13
	ADDQ   $16, AX

r4c1:
	MOVAPD   X0, X4
	UNPCKLPD X1, X0
	UNPCKHPD X1, X4
	ADDPD    X4, X0
	MOVAPD   X2, X5
	UNPCKLPD X3, X2
	UNPCKHPD X3, X5
	ADDPD    X5, X2
	TESTQ    $1, R10
	JE       r4st
	MOVSD    (AX), X12
	UNPCKLPD X12, X12
	MOVSD    (R13), X4
	MOVHPD   (R13)(DX*1), X4
	MOVSD    (R13)(DX*2), X5
	MOVHPD   (R13)(R8*1), X5
	MULPD    X12, X4
	MULPD    X12, X5
	ADDPD    X4, X0
	ADDPD    X5, X2

r4st:
	MOVUPS X0, (R11)
	MOVUPS X2, 16(R11)
	ADDQ   $32, R11
	LEAQ   (SI)(DX*4), SI
	SUBQ   $4, CX
	JMP    r4

r2:
	CMPQ  CX, $2
	JLT   r1
	XORPS X0, X0
	XORPS X1, X1
	MOVQ  SI, R13
	MOVQ  BX, AX
	MOVQ  R10, R9
	SHRQ  $2, R9
	JE    r2c2

r2c4:
	MOVUPS (AX), X12
	MOVUPS 16(AX), X13
	MOVUPS (R13), X8
	MOVUPS 16(R13), X9
	MOVUPS (R13)(DX*1), X10
	MOVUPS 16(R13)(DX*1), X11
	MULPD  X12, X8
	MULPD  X13, X9
	MULPD  X12, X10
	MULPD  X13, X11
	ADDPD  X8, X0
	ADDPD  X10, X1
	ADDPD  X9, X0
	ADDPD  X11, X1
	ADDQ   $32, R13
	ADDQ   $32, AX
	DECQ   R9
	JNE    r2c4

r2c2:
	TESTQ  $2, R10
	JE     r2c1
	MOVUPS (AX), X12
	MOVUPS (R13), X8
	MOVUPS (R13)(DX*1), X9
	MULPD  X12, X8
	MULPD  X12, X9
	ADDPD  X8, X0
	ADDPD  X9, X1
	ADDQ   $16, R13
	ADDQ   $16, AX

r2c1:
	MOVAPD   X0, X4
	UNPCKLPD X1, X0
	UNPCKHPD X1, X4
	ADDPD    X4, X0
	TESTQ    $1, R10
	JE       r2st
	MOVSD    (AX), X12
	UNPCKLPD X12, X12
	MOVSD    (R13), X8
	MOVHPD   (R13)(DX*1), X8
	MULPD    X12, X8
	ADDPD    X8, X0

r2st:
	MOVUPS X0, (R11)
	ADDQ   $16, R11
	LEAQ   (SI)(DX*2), SI
	SUBQ   $2, CX

r1:
	TESTQ CX, CX
	JE    wb
	XORPS X0, X0
	MOVQ  SI, R13
	MOVQ  BX, AX
	MOVQ  R10, R9
	SHRQ  $2, R9
	JE    r1c2

r1c4:
	MOVUPS (AX), X12
	MOVUPS 16(AX), X13
	MOVUPS (R13), X8
	MOVUPS 16(R13), X9
	MULPD  X12, X8
	MULPD  X13, X9
	ADDPD  X8, X0
	ADDPD  X9, X0
	ADDQ   $32, R13
	ADDQ   $32, AX
	DECQ   R9
	JNE    r1c4

r1c2:
	TESTQ  $2, R10
	JE     r1c1
	MOVUPS (AX), X12
	MOVUPS (R13), X8
	MULPD  X12, X8
	ADDPD  X8, X0
	ADDQ   $16, R13
	ADDQ   $16, AX

r1c1:
	TESTQ $1, R10
	JE    r1st
	MOVSD (AX), X12
	MOVSD (R13), X8
	MULSD X12, X8
	ADDSD X8, X0

r1st:
	MOVAPD   X0, X4
	UNPCKHPD X4, X4
	ADDSD    X4, X0
	MOVSD    X0, (R11)

wb:
	MOVQ  tmp+40(FP), R9
	MOVSD (DI), X0
	ADDSD (R9), X0
	MOVSD X0, (DI)
	MOVQ  m+32(FP), CX
	MOVQ  $1, AX

cp2:
	LEAQ   2(AX), R12
	CMPQ   R12, CX
	JGT    cp1
	MOVUPS (R9)(AX*8), X0
	MOVUPS X0, (DI)(AX*8)
	MOVQ   R12, AX
	JMP    cp2

cp1:
	CMPQ  AX, CX
	JGE   cpd
	MOVSD (R9)(AX*8), X0
	MOVSD X0, (DI)(AX*8)
	INCQ  AX

cpd:
	XORPS X0, X0

clr2:
	LEAQ   1(AX), R12
	CMPQ   R12, R10
	JGT    clr1
	MOVUPS X0, (DI)(AX*8)
	LEAQ   2(AX), AX
	JMP    clr2

clr1:
	CMPQ  AX, R10
	JGT   done
	MOVSD X0, (DI)(AX*8)

done:
	MOVQ R10, ret+48(FP)
	RET
