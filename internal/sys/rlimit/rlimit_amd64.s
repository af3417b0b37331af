//go:build linux

#include "textflag.h"

// func getNofile(lim *Limit) int64
TEXT ·getNofile(SB),NOSPLIT,$0-16
	MOVQ	$0, DI      // pid: this process
	MOVQ	$7, SI      // RLIMIT_NOFILE
	MOVQ	$0, DX      // new: none
	MOVQ	lim+0(FP), R10 // old
	MOVQ	$302, AX    // SYS_prlimit64
	SYSCALL
	MOVQ	AX, ret+8(FP)
	RET
