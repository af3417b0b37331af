//go:build linux

#include "textflag.h"

// func getNofile(lim *Limit) int64
TEXT ·getNofile(SB),NOSPLIT,$0-16
	MOVD	$0, R0      // pid: this process
	MOVD	$7, R1      // RLIMIT_NOFILE
	MOVD	$0, R2      // new: none
	MOVD	lim+0(FP), R3 // old
	MOVD	$261, R8    // SYS_prlimit64
	SVC
	MOVD	R0, ret+8(FP)
	RET
