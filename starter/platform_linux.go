package starter

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/session-starter/session-starter/internal/sys"
)

// The Linux parts of the starter: the subreaper, the children listed from
// /proc, the terminal's thread-directed signals, and the control pipe
// reopened through /proc/self/fd.

// defaultExe is the binary the gate and the guard are started from: this
// process's own, through the kernel's link to it, which stays valid
// whatever happens to the path it was started by.
func defaultExe() (string, error) { return "/proc/self/exe", nil }

// CanAdoptOrphans says whether [Options.Subreaper] can be had here: not in
// the portable build, which takes macOS's path (macOS has none).
const CanAdoptOrphans = !sys.Pidless

// fionread is FIONREAD: how many bytes a pipe holds.
const fionread = unix.TIOCINQ

// pollRDHUP asks poll to report a socket whose peer shut its writing
// down.
const pollRDHUP = unix.POLLRDHUP

// unixPeer names the inode of a Unix socket's peer (sock_diag).
func unixPeer(fd int) (uint64, bool, error) { return sys.UnixPeer(fd) }

// reapExited reaps the child pid if it has exited, by number
// (waitid(P_PID, WEXITED|WNOHANG)), and reports whether it did.
func reapExited(pid int) bool {
	var info unix.Siginfo
	for {
		err := unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOHANG, nil)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		return err == nil && info.Signo != 0
	}
}

// controlPipe opens the control pipe n for reading without touching the
// launcher's open file: reopened through /proc/self/fd/N as a private
// non-blocking, close-on-exec open file of its own. The portable build
// reads n itself, as macOS must (controlPipeShared).
func controlPipe(n int) (*control, error) {
	if sys.Pidless {
		return controlPipeShared(n)
	}
	fd, err := unix.Open("/proc/self/fd/"+strconv.Itoa(n), unix.O_RDONLY|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("--control-fd %d: reopen: %w", n, err)
	}
	return &control{fd: fd, owned: true}, nil
}

// subreaper makes this process a child subreaper (PR_SET_CHILD_SUBREAPER):
// orphans of its subtree — also processes that left the Engine's group
// with setsid or setpgid — are re-parented to it instead of to init. It
// returns a function that puts the previous setting back.
func subreaper() (func(), error) {
	var was int32
	// Sound: the kernel writes one int to was, which outlives the call.
	if _, _, errno := unix.RawSyscall6(unix.SYS_PRCTL, unix.PR_GET_CHILD_SUBREAPER, uintptr(unsafe.Pointer(&was)), 0, 0, 0, 0); errno != 0 {
		return nil, os.NewSyscallError("prctl", errno)
	}
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		return nil, os.NewSyscallError("prctl", err)
	}
	return func() { _ = unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, uintptr(was), 0, 0, 0) }, nil
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
// runs several times in every session.
func children() []int { return childrenOf(strconv.Itoa(os.Getpid())) }

// everyChild lists the children of every thread of this process: once,
// when the session starts, for the children it already had (a library
// caller's may belong to any of its threads).
func everyChild() []int {
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return nil
	}
	var out []int
	for _, t := range tasks {
		out = append(out, childrenOf(t.Name())...)
	}
	return out
}

// childrenOf lists the children of the thread tid.
func childrenOf(tid string) []int {
	fd, err := unix.Open("/proc/self/task/"+tid+"/children", unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil
	}
	defer unix.Close(fd)
	var out []int
	buf := make([]byte, 4096)
	n := 0
	for {
		if n == len(buf) {
			buf = append(buf, make([]byte, len(buf))...)
		}
		m, err := unix.Read(fd, buf[n:])
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil || m == 0 {
			break
		}
		n += m
	}
	for field := range strings.FieldsSeq(string(buf[:n])) {
		if pid, err := strconv.Atoi(field); err == nil {
			out = append(out, pid)
		}
	}
	return out
}

// withTTOUBlocked runs f on a locked thread with SIGTTOU blocked. Blocking
// it, rather than signal.Ignore, leaves nothing for a child to inherit:
// the mask is that thread's alone and is put back before it is unlocked.
func withTTOUBlocked(f func()) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var set, old unix.Sigset_t
	set.Val[(syscall.SIGTTOU-1)/64] |= 1 << ((syscall.SIGTTOU - 1) % 64)
	if err := unix.PthreadSigmask(unix.SIG_BLOCK, &set, &old); err != nil {
		f()
		return
	}
	f()
	_ = unix.PthreadSigmask(unix.SIG_SETMASK, &old, nil)
}

// engineStopped consumes a stop of the Engine (Ctrl-Z: SIGTSTP to its
// group; SIGTTIN or SIGTTOU in the background) and reports it; the Engine
// is not reaped. By number: the Engine is this process's unreaped child.
func engineStopped(pid int) bool {
	var info unix.Siginfo
	for {
		err := unix.Waitid(unix.P_PID, pid, &info, unix.WSTOPPED|unix.WNOHANG, nil)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		return err == nil && info.Signo != 0
	}
}

// stopSelf stops this process until it is continued. The SIGSTOP goes to
// the calling thread, which then stops on its way back from tgkill: with
// kill(getpid()) another thread may take the signal while this one runs
// on, and reads the terminal's foreground group before the shell's fg has
// set it.
func stopSelf() {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	_ = unix.Tgkill(unix.Getpid(), unix.Gettid(), unix.SIGSTOP)
}
