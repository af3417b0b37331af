package starter

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"syscall"

	"github.com/session-starter/session-starter/guard"
	"github.com/session-starter/session-starter/internal/proc"
	"github.com/session-starter/session-starter/internal/sys"
)

// The Linux parts of the starter: the subreaper, the children listed from
// /proc, the terminal's thread-directed signals, and the control pipe
// reopened through /proc/self/fd.

// defaultExe is the binary the gate and the guard are started from: this
// process's own, through the kernel's link to it, which stays valid
// whatever happens to the path it was started by.
func defaultExe() (string, error) { return "/proc/self/exe", nil }

// pollRDHUP asks poll to report a socket whose peer shut its writing
// down.
const pollRDHUP = sys.POLLRDHUP

// unixPeer names the inode of a Unix socket's peer (sock_diag).
func unixPeer(fd int) (uint64, bool, error) { return sys.UnixPeer(fd) }

// controlPipe opens the control pipe n for reading without touching the
// launcher's open file: reopened through /proc/self/fd/N as a private
// non-blocking, close-on-exec open file of its own. The portable build
// reads n itself, as macOS must (controlPipeShared).
func controlPipe(n int) (*control, error) {
	if sys.Pidless {
		return controlPipeShared(n)
	}
	fd, err := sys.Open("/proc/self/fd/"+strconv.Itoa(n), sys.O_RDONLY|sys.O_NONBLOCK)
	if err != nil {
		return nil, fmt.Errorf("--control-fd %d: reopen: %w", n, err)
	}
	// A FIFO's reader opened while it has no writer is kept from seeing
	// the hang-up of writers it never saw: a reopening made after the
	// launcher's writer came and went would wait for ever. The launcher's
	// own open file saw that writer, and tells the hang-up (poll reports
	// POLLHUP whatever the events asked); asked after the reopening, so
	// that a writer that leaves between the two is seen by one of them.
	// Then n itself is read, as macOS reads it: a pipe at end of input
	// answers at once, blocking or not.
	fds := []sys.PollFd{{Fd: int32(n)}}
	if _, err := sys.Poll(fds, 0); err == nil && fds[0].Revents&sys.POLLHUP != 0 {
		sys.Close(fd)
		return controlPipeShared(n)
	}
	return &control{fd: fd, owned: true}, nil
}

// subreaper makes this process a child subreaper (PR_SET_CHILD_SUBREAPER):
// orphans of its subtree — also processes that left the Engine's group
// with setsid or setpgid — are re-parented to it instead of to init. It
// returns a function that puts the previous setting back.
func subreaper() (func(), error) {
	was, err := sys.ChildSubreaper()
	if err != nil {
		return nil, err
	}
	if err := sys.SetChildSubreaper(true); err != nil {
		return nil, err
	}
	return func() { _ = sys.SetChildSubreaper(was) }, nil
}

// children lists the children of this process's main thread, from
// /proc/self/task/PID/children, with raw calls into one buffer: it runs on
// every SIGCHLD and in every sweep round. A child belongs to the thread
// that forked it, and an orphan is re-parented to the first live thread
// of its reaper, which is the main thread (the thread-group leader) while
// it lives — and the Go runtime never ends its main thread. So the
// adopted orphans, and the children this process had before it started
// (a wrapper's background job, forked before the exec that made it
// session-starter), are all there; the gate and the guard, which another
// thread may have forked, are known by their PIDs and never adopted.
// Reading one file instead of one per thread (7-8 of them) matters: this
// runs several times in every session. A file that cannot be read is an
// error: a missed child would be a missed escapee.
func children() ([]int, error) { return proc.ThreadChildren(os.Getpid(), os.Getpid()) }

// everyChild lists the children of every thread of this process: once,
// when the session starts, for the children it already had (a library
// caller's may belong to any of its threads). A thread that ended
// between the listing of the threads and the read of its file had no
// children left; any other failure is an error.
func everyChild() ([]int, error) { return proc.Children(os.Getpid()) }

// withTTOUBlocked runs f on a locked thread with SIGTTOU blocked. Blocking
// it, rather than signal.Ignore, leaves nothing for a child to inherit:
// the mask is that thread's alone and is put back before it is unlocked.
func withTTOUBlocked(f func()) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var set, old sys.Sigset_t
	set.Val[(syscall.SIGTTOU-1)/64] |= 1 << ((syscall.SIGTTOU - 1) % 64)
	if err := sys.PthreadSigmask(sys.SIG_BLOCK, &set, &old); err != nil {
		f()
		return
	}
	f()
	_ = sys.PthreadSigmask(sys.SIG_SETMASK, &old, nil)
}

// engineStopped consumes a stop of the Engine (Ctrl-Z: SIGTSTP to its
// group; SIGTTIN or SIGTTOU in the background) and reports it; the Engine
// is not reaped. By number: the Engine is this process's unreaped child.
func engineStopped(pid int) bool {
	stopped, err := sys.Waitid(pid, sys.WSTOPPED|sys.WNOHANG)
	return err == nil && stopped
}

// stopSelf stops this process until it is continued. The SIGSTOP goes to
// the calling thread, which then stops on its way back from tgkill: with
// kill(getpid()) another thread may take the signal while this one runs
// on, and reads the terminal's foreground group before the shell's fg has
// set it.
func stopSelf() {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	_ = sys.SignalThread(syscall.SIGSTOP)
}

// markLayer hands the guard the session's mark with the gate's start in
// clock ticks since boot (guard.Spec.Mark), where marked processes are
// verified: the session began with the gate, so every process that
// carries the mark started after it.
type markLayer struct{ noLayer }

func (markLayer) hand(s *session, gs *guard.Spec) {
	st, err := proc.ReadStat(s.gate.PID)
	if err != nil {
		s.log.Debug().Err(err).Msg("no start time of the gate: the guard ends no marked process")
		return
	}
	gs.Mark, gs.MarkSince = s.mark.String(), st.StartTime
}
