package sys

import (
	"runtime"
	"syscall"
	"time"
)

// deathSteps are one platform's system calls of [Die], made by die in
// this order. The Go runtime keeps a handler of its own for every signal,
// also after signal.Reset (that only stops the notification): it prints
// a dump and exits 2 for the signals it throws on (QUIT, ILL, TRAP, ABRT,
// SEGV, BUS, FPE, and on the BSDs EMT, on macOS SYS too), and drops those
// it only notifies (PIPE, ALRM, USR1, USR2, XCPU, XFSZ, VTALRM, PROF). So
// the disposition goes back to SIG_DFL by a raw sigaction first (reset);
// the signal is then unblocked on the calling thread (unblock) and sent
// to that thread (raise): a pending signal with the default disposition
// ends the process before the call that sent it returns to user space.
// Core dumps are switched off before anything else (noCore): the Engine's
// core, if any, was written by the Engine itself.
type deathSteps struct {
	noCore  func()
	reset   func(syscall.Signal) error
	unblock func(syscall.Signal) error
	raise   func(syscall.Signal) error
}

// dieWait bounds how long die waits after the raise for a signal that
// did not end the process at once: one whose default action is to be
// ignored, or one PID 1 of a PID namespace ignores. Then die returns and
// the caller exits 128+sig.
const dieWait = 100 * time.Millisecond

// die makes the calls of steps for sig on a thread it locks, so that the
// unblock and the raise concern the same thread. The errors of the steps
// are not fatal: SIGKILL cannot be reset or blocked (EINVAL), and only the
// raise decides.
func die(sig syscall.Signal, steps deathSteps) {
	runtime.LockOSThread()
	steps.noCore()
	_ = steps.reset(sig)
	_ = steps.unblock(sig)
	_ = steps.raise(sig)
	time.Sleep(dieWait)
}
