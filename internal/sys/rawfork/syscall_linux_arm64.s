//go:build linux && !portable && !session_starter_noraw && go1.26 && !go1.28 && (amd64 || arm64)

#include "textflag.h"

// func rawSyscall6(trap, a1, a2, a3, a4, a5, a6 uintptr) (r1, errno uintptr)
//
// As on amd64: a leaf with no frame, no runtime, no stack but its
// arguments.
TEXT ·rawSyscall6(SB),NOSPLIT|NOFRAME,$0-72
	MOVD	a1+8(FP), R0
	MOVD	a2+16(FP), R1
	MOVD	a3+24(FP), R2
	MOVD	a4+32(FP), R3
	MOVD	a5+40(FP), R4
	MOVD	a6+48(FP), R5
	MOVD	trap+0(FP), R8
	SVC
	CMN	$4095, R0
	BCC	ok
	MOVD	$-1, R4
	MOVD	R4, r1+56(FP)
	NEG	R0, R0
	MOVD	R0, errno+64(FP)
	RET
ok:
	MOVD	R0, r1+56(FP)
	MOVD	ZR, errno+64(FP)
	RET
