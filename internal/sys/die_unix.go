//go:build darwin || freebsd || linux

package sys

import (
	"slices"
	"syscall"
)

// Die ends this process by signal sig, as a process that did not catch it
// would end: no Go traceback, no core file, and the signal's own status
// for the parent — for every signal of [DeadlySignals]. It returns only
// if the signal did not end the process (its default action is to be
// ignored, or this is PID 1 of a PID namespace, which ignores its own
// fatal signals), and the caller then exits 128+sig.
//
// The Go runtime cannot be asked to die of a signal it handles, so the
// signal's disposition is reset by a raw sigaction, the signal unblocked
// on a locked thread and sent to that thread (see deathSteps); the calls
// are each platform's: rt_sigaction, rt_sigprocmask and tgkill on Linux;
// sigaction, sigprocmask (which sets the calling thread's mask) and
// thr_kill on FreeBSD; sigaction, pthread_sigmask and pthread_kill of
// libSystem on macOS.
func Die(sig syscall.Signal) { die(sig, death) }

// deadlyEverywhere are the signals whose default action ends a process
// on Linux, macOS and FreeBSD alike (with a core for QUIT, ILL, TRAP,
// ABRT, FPE, BUS, SEGV, SYS, XCPU and XFSZ where the limit allows).
var deadlyEverywhere = []syscall.Signal{
	syscall.SIGHUP, syscall.SIGINT, syscall.SIGQUIT, syscall.SIGILL, syscall.SIGTRAP,
	syscall.SIGABRT, syscall.SIGFPE, syscall.SIGKILL, syscall.SIGBUS, syscall.SIGSEGV,
	syscall.SIGSYS, syscall.SIGPIPE, syscall.SIGALRM, syscall.SIGTERM, syscall.SIGXCPU,
	syscall.SIGXFSZ, syscall.SIGVTALRM, syscall.SIGPROF, syscall.SIGUSR1, syscall.SIGUSR2,
}

// DeadlySignals returns the signals numbered 1 to 31 whose default action
// ends a process here, in ascending order: an Engine can die of each, and
// [Die] dies of each in turn. Every other signal of 1 to 31 is ignored by
// default or stops the process (STOP, TSTP, TTIN, TTOU). The signals
// above 31 (Linux's and FreeBSD's real-time ones, FreeBSD's THR and
// LIBRT) are not listed.
func DeadlySignals() []syscall.Signal {
	out := slices.Concat(deadlyEverywhere, deadlyHere)
	slices.Sort(out)
	return out
}
