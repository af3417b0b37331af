//go:build linux && !portable

#include "textflag.h"

// func cloneVM(args unsafe.Pointer, size uintptr, fn func(unsafe.Pointer), arg unsafe.Pointer) (pid, errno uintptr)
TEXT ·cloneVM(SB),NOSPLIT|NOFRAME,$0-48
	MOVQ	args+0(FP), DI
	MOVQ	size+8(FP), SI
	MOVQ	fn+16(FP), R12
	MOVQ	arg+24(FP), R13
	MOVL	$435, AX // SYS_clone3
	SYSCALL
	CMPQ	AX, $0
	JEQ	child
	CMPQ	AX, $0xfffffffffffff001
	JLS	ok
	MOVQ	$0, pid+32(FP)
	NEGQ	AX
	MOVQ	AX, errno+40(FP)
	RET
ok:
	MOVQ	AX, pid+32(FP)
	MOVQ	$0, errno+40(FP)
	RET
child:
	// The child, on the stack clone3 was given: SP is its top. R12 and
	// R13 survive the system call, which changes only AX, CX and R11.
	//
	// fn is called as Go calls a func value, in the register ABI (its
	// argument in AX, the func value in DX, X15 zero), not through the
	// assembly-to-Go wrapper, which under the race detector enters the
	// race runtime, whose state is the parent's. The g register R14 is
	// nil: the child has no goroutine, and code that reached for one
	// would fault in the child instead of touching the parent's.
	MOVQ	R12, DX
	MOVQ	R13, AX
	XORPS	X15, X15
	XORQ	R14, R14
	MOVQ	0(DX), R12
	SUBQ	$16, SP // the callee's spill slot for AX, kept 16-byte aligned
	CALL	R12
	// fn never returns; if it did, the child ends here.
	MOVL	$127, DI
	MOVL	$231, AX // SYS_exit_group
	SYSCALL
	JMP	child
