//go:build linux && !portable && !session_starter_noraw && go1.26 && !go1.28 && (amd64 || arm64)

#include "textflag.h"

// func rawSyscall6(trap, a1, a2, a3, a4, a5, a6 uintptr) (r1, errno uintptr)
//
// A leaf with no frame of its own: it touches neither the Go runtime nor
// any stack but its arguments, so a forked child may call it, and the
// nosplit chains that reach it stay short in every build (-N -l
// included). errno is the negated result of a failed call, or 0.
TEXT ·rawSyscall6(SB),NOSPLIT,$0-72
	MOVQ	a1+8(FP), DI
	MOVQ	a2+16(FP), SI
	MOVQ	a3+24(FP), DX
	MOVQ	a4+32(FP), R10
	MOVQ	a5+40(FP), R8
	MOVQ	a6+48(FP), R9
	MOVQ	trap+0(FP), AX
	SYSCALL
	CMPQ	AX, $0xfffffffffffff001
	JLS	ok
	MOVQ	$-1, r1+56(FP)
	NEGQ	AX
	MOVQ	AX, errno+64(FP)
	RET
ok:
	MOVQ	AX, r1+56(FP)
	MOVQ	$0, errno+64(FP)
	RET
