// The libSystem functions of Die that golang.org/x/sys/unix does not
// wrap on macOS (die_darwin.go): each trampoline jumps to the function,
// and its address is what the syscall package's libc call takes.

#include "textflag.h"

TEXT libc_sigaction_trampoline<>(SB),NOSPLIT,$0-0
	JMP	libc_sigaction(SB)
GLOBL	·libc_sigaction_trampoline_addr(SB), RODATA, $8
DATA	·libc_sigaction_trampoline_addr(SB)/8, $libc_sigaction_trampoline<>(SB)

TEXT libc_pthread_sigmask_trampoline<>(SB),NOSPLIT,$0-0
	JMP	libc_pthread_sigmask(SB)
GLOBL	·libc_pthread_sigmask_trampoline_addr(SB), RODATA, $8
DATA	·libc_pthread_sigmask_trampoline_addr(SB)/8, $libc_pthread_sigmask_trampoline<>(SB)

TEXT libc_pthread_self_trampoline<>(SB),NOSPLIT,$0-0
	JMP	libc_pthread_self(SB)
GLOBL	·libc_pthread_self_trampoline_addr(SB), RODATA, $8
DATA	·libc_pthread_self_trampoline_addr(SB)/8, $libc_pthread_self_trampoline<>(SB)

TEXT libc_pthread_kill_trampoline<>(SB),NOSPLIT,$0-0
	JMP	libc_pthread_kill(SB)
GLOBL	·libc_pthread_kill_trampoline_addr(SB), RODATA, $8
DATA	·libc_pthread_kill_trampoline_addr(SB)/8, $libc_pthread_kill_trampoline<>(SB)
