//go:build !purego

#include "textflag.h"

// func mulBlock4(dst *float64, ldd int, tt *float64, offs *int, n int, src *float64, w int, add bool)
//
// Four output rows × four columns in X0…X7 (row i: X(2i) columns 0–1,
// X(2i+1) columns 2–3). For each of the n terms k, in order, src's four
// values at byte offset offs[k] are multiplied by the row's coefficient
// (tt holds each one twice, 8 values per term) and added: MULPD then
// ADDPD, the rounding of gonum's SSE2 axpy, never FMA; the last w mod 4
// columns likewise one at a time.
TEXT ·mulBlock4(SB), NOSPLIT, $0-57
	MOVQ    dst+0(FP), DI
	MOVQ    ldd+8(FP), R8
	SHLQ    $3, R8
	LEAQ    (R8)(R8*2), R10
	MOVQ    tt+16(FP), SI
	MOVQ    offs+24(FP), R9
	MOVQ    n+32(FP), CX
	MOVQ    src+40(FP), DX
	MOVQ    w+48(FP), BX
	MOVBQZX add+56(FP), AX

colloop:
	CMPQ  BX, $4
	JLT   tail
	TESTQ AX, AX
	JNE   load
	XORPS X0, X0
	XORPS X1, X1
	XORPS X2, X2
	XORPS X3, X3
	XORPS X4, X4
	XORPS X5, X5
	XORPS X6, X6
	XORPS X7, X7
	JMP   kstart

load:
	MOVUPD (DI), X0
	MOVUPD 16(DI), X1
	MOVUPD (DI)(R8*1), X2
	MOVUPD 16(DI)(R8*1), X3
	MOVUPD (DI)(R8*2), X4
	MOVUPD 16(DI)(R8*2), X5
	MOVUPD (DI)(R10*1), X6
	MOVUPD 16(DI)(R10*1), X7

kstart:
	XORQ R11, R11
	MOVQ SI, R12

kloop:
	CMPQ   R11, CX
	JGE    kdone
	MOVQ   (R9)(R11*8), R13
	MOVUPD (DX)(R13*1), X8
	MOVUPD 16(DX)(R13*1), X9

	MOVUPD (R12), X10
	MOVUPD (R12), X11
	MULPD  X8, X10
	MULPD  X9, X11
	ADDPD  X10, X0
	ADDPD  X11, X1

	MOVUPD 16(R12), X10
	MOVUPD 16(R12), X11
	MULPD  X8, X10
	MULPD  X9, X11
	ADDPD  X10, X2
	ADDPD  X11, X3

	MOVUPD 32(R12), X10
	MOVUPD 32(R12), X11
	MULPD  X8, X10
	MULPD  X9, X11
	ADDPD  X10, X4
	ADDPD  X11, X5

	MOVUPD 48(R12), X10
	MOVUPD 48(R12), X11
	MULPD  X8, X10
	MULPD  X9, X11
	ADDPD  X10, X6
	ADDPD  X11, X7

	ADDQ $64, R12
	INCQ R11
	JMP  kloop

kdone:
	MOVUPD X0, (DI)
	MOVUPD X1, 16(DI)
	MOVUPD X2, (DI)(R8*1)
	MOVUPD X3, 16(DI)(R8*1)
	MOVUPD X4, (DI)(R8*2)
	MOVUPD X5, 16(DI)(R8*2)
	MOVUPD X6, (DI)(R10*1)
	MOVUPD X7, 16(DI)(R10*1)
	ADDQ   $32, DI
	ADDQ   $32, DX
	SUBQ   $4, BX
	JMP    colloop

	// The last w mod 4 columns one at a time: MULSD then ADDSD.
tail:
	TESTQ BX, BX
	JEQ   done
	XORPS X0, X0
	XORPS X2, X2
	XORPS X4, X4
	XORPS X6, X6
	TESTQ AX, AX
	JEQ   tkstart
	MOVSD (DI), X0
	MOVSD (DI)(R8*1), X2
	MOVSD (DI)(R8*2), X4
	MOVSD (DI)(R10*1), X6

tkstart:
	XORQ R11, R11
	MOVQ SI, R12

tkloop:
	CMPQ  R11, CX
	JGE   tkdone
	MOVQ  (R9)(R11*8), R13
	MOVSD (DX)(R13*1), X8
	MOVSD (R12), X10
	MULSD X8, X10
	ADDSD X10, X0
	MOVSD 16(R12), X10
	MULSD X8, X10
	ADDSD X10, X2
	MOVSD 32(R12), X10
	MULSD X8, X10
	ADDSD X10, X4
	MOVSD 48(R12), X10
	MULSD X8, X10
	ADDSD X10, X6
	ADDQ  $64, R12
	INCQ  R11
	JMP   tkloop

tkdone:
	MOVSD X0, (DI)
	MOVSD X2, (DI)(R8*1)
	MOVSD X4, (DI)(R8*2)
	MOVSD X6, (DI)(R10*1)
	ADDQ  $8, DI
	ADDQ  $8, DX
	DECQ  BX
	JMP   tail

done:
	RET

// func mulBlock2(dst *float64, ldd int, tt *float64, offs *int, n int, src *float64, w int, add bool)
//
// mulBlock4 for two rows (tt still holds 8 values per term; rows 2–3 are
// not read).
TEXT ·mulBlock2(SB), NOSPLIT, $0-57
	MOVQ    dst+0(FP), DI
	MOVQ    ldd+8(FP), R8
	SHLQ    $3, R8
	MOVQ    tt+16(FP), SI
	MOVQ    offs+24(FP), R9
	MOVQ    n+32(FP), CX
	MOVQ    src+40(FP), DX
	MOVQ    w+48(FP), BX
	MOVBQZX add+56(FP), AX

colloop2:
	CMPQ  BX, $4
	JLT   tail2
	TESTQ AX, AX
	JNE   load2
	XORPS X0, X0
	XORPS X1, X1
	XORPS X2, X2
	XORPS X3, X3
	JMP   kstart2

load2:
	MOVUPD (DI), X0
	MOVUPD 16(DI), X1
	MOVUPD (DI)(R8*1), X2
	MOVUPD 16(DI)(R8*1), X3

kstart2:
	XORQ R11, R11
	MOVQ SI, R12

kloop2:
	CMPQ   R11, CX
	JGE    kdone2
	MOVQ   (R9)(R11*8), R13
	MOVUPD (DX)(R13*1), X8
	MOVUPD 16(DX)(R13*1), X9

	MOVUPD (R12), X10
	MOVUPD (R12), X11
	MULPD  X8, X10
	MULPD  X9, X11
	ADDPD  X10, X0
	ADDPD  X11, X1

	MOVUPD 16(R12), X10
	MOVUPD 16(R12), X11
	MULPD  X8, X10
	MULPD  X9, X11
	ADDPD  X10, X2
	ADDPD  X11, X3

	ADDQ $64, R12
	INCQ R11
	JMP  kloop2

kdone2:
	MOVUPD X0, (DI)
	MOVUPD X1, 16(DI)
	MOVUPD X2, (DI)(R8*1)
	MOVUPD X3, 16(DI)(R8*1)
	ADDQ   $32, DI
	ADDQ   $32, DX
	SUBQ   $4, BX
	JMP    colloop2

tail2:
	TESTQ BX, BX
	JEQ   done2
	XORPS X0, X0
	XORPS X2, X2
	TESTQ AX, AX
	JEQ   tkstart2
	MOVSD (DI), X0
	MOVSD (DI)(R8*1), X2

tkstart2:
	XORQ R11, R11
	MOVQ SI, R12

tkloop2:
	CMPQ  R11, CX
	JGE   tkdone2
	MOVQ  (R9)(R11*8), R13
	MOVSD (DX)(R13*1), X8
	MOVSD (R12), X10
	MULSD X8, X10
	ADDSD X10, X0
	MOVSD 16(R12), X10
	MULSD X8, X10
	ADDSD X10, X2
	ADDQ  $64, R12
	INCQ  R11
	JMP   tkloop2

tkdone2:
	MOVSD X0, (DI)
	MOVSD X2, (DI)(R8*1)
	ADDQ  $8, DI
	ADDQ  $8, DX
	DECQ  BX
	JMP   tail2

done2:
	RET

// func mulBlock1(dst *float64, ldd int, tt *float64, offs *int, n int, src *float64, w int, add bool)
//
// mulBlock4 for one row (tt still holds 8 values per term; rows 1–3 are
// not read): package son's β fold, and odd row counts.
TEXT ·mulBlock1(SB), NOSPLIT, $0-57
	MOVQ    dst+0(FP), DI
	MOVQ    ldd+8(FP), R8
	SHLQ    $3, R8
	MOVQ    tt+16(FP), SI
	MOVQ    offs+24(FP), R9
	MOVQ    n+32(FP), CX
	MOVQ    src+40(FP), DX
	MOVQ    w+48(FP), BX
	MOVBQZX add+56(FP), AX

colloop1:
	CMPQ  BX, $4
	JLT   tail1
	TESTQ AX, AX
	JNE   load1
	XORPS X0, X0
	XORPS X1, X1
	JMP   kstart1

load1:
	MOVUPD (DI), X0
	MOVUPD 16(DI), X1

kstart1:
	XORQ R11, R11
	MOVQ SI, R12

kloop1:
	CMPQ   R11, CX
	JGE    kdone1
	MOVQ   (R9)(R11*8), R13
	MOVUPD (DX)(R13*1), X8
	MOVUPD 16(DX)(R13*1), X9

	MOVUPD (R12), X10
	MOVUPD (R12), X11
	MULPD  X8, X10
	MULPD  X9, X11
	ADDPD  X10, X0
	ADDPD  X11, X1

	ADDQ $64, R12
	INCQ R11
	JMP  kloop1

kdone1:
	MOVUPD X0, (DI)
	MOVUPD X1, 16(DI)
	ADDQ   $32, DI
	ADDQ   $32, DX
	SUBQ   $4, BX
	JMP    colloop1

tail1:
	TESTQ BX, BX
	JEQ   done1
	XORPS X0, X0
	TESTQ AX, AX
	JEQ   tkstart1
	MOVSD (DI), X0

tkstart1:
	XORQ R11, R11
	MOVQ SI, R12

tkloop1:
	CMPQ  R11, CX
	JGE   tkdone1
	MOVQ  (R9)(R11*8), R13
	MOVSD (DX)(R13*1), X8
	MOVSD (R12), X10
	MULSD X8, X10
	ADDSD X10, X0
	ADDQ  $64, R12
	INCQ  R11
	JMP   tkloop1

tkdone1:
	MOVSD X0, (DI)
	ADDQ  $8, DI
	ADDQ  $8, DX
	DECQ  BX
	JMP   tail1

done1:
	RET
