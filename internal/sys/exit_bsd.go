//go:build darwin || freebsd

package sys

import (
	"fmt"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// The exit descriptor of macOS and FreeBSD is a kqueue of its own with
// one EVFILT_PROC/NOTE_EXIT filter on the process: the kqueue is readable
// once the process has exited, so the starter and the guard poll it with
// their other descriptors. The event's data is the wait status (on macOS
// with NOTE_EXITSTATUS, which only a parent may ask for); reading it
// consumes the event, so the status is kept in exits until the reap.

var exits = struct {
	sync.Mutex
	m map[int]WaitStatus // by exit descriptor
}{m: map[int]WaitStatus{}}

// WatchExit returns a kqueue that becomes readable once the process pid
// has exited. The filter is registered by number: the caller must know
// pid names the process it means (the leader of a group it pins) or check
// afterwards that it was still the one meant (a parent: getppid() again).
// [ErrGone] if there is no such process. A process that has exited but is
// not reaped (a zombie) is told apart by the kernels: macOS refuses the
// filter as for no process (ESRCH: [ErrGone]); FreeBSD registers it and
// it fires at once, the event carrying the zombie's wait status. Either
// way the process is known to have exited.
func WatchExit(pid int) (int, error) { return watch(pid, unix.NOTE_EXIT) }

// WatchChild is [WatchExit] for the caller's own unreaped child, whose
// wait status the event then carries ([PeekChild]).
func WatchChild(pid int) (int, error) { return watch(pid, noteExit) }

func watch(pid int, fflags uint32) (int, error) {
	kq, err := unix.Kqueue()
	if err != nil {
		return -1, named("kqueue", err)
	}
	unix.CloseOnExec(kq)
	ev := make([]unix.Kevent_t, 1)
	unix.SetKevent(&ev[0], pid, unix.EVFILT_PROC, unix.EV_ADD|unix.EV_ONESHOT)
	ev[0].Fflags = fflags
	_, err = ignoringEINTR(func() (int, error) { return unix.Kevent(kq, ev, nil, nil) })
	if err != nil {
		unix.Close(kq)
		return -1, namedOrGone("kevent", err)
	}
	return kq, nil
}

// exitOf reads the exit event of the kqueue fd, if there is one, and
// keeps its status.
func exitOf(fd int) (WaitStatus, bool, error) {
	exits.Lock()
	defer exits.Unlock()
	if st, ok := exits.m[fd]; ok {
		return st, true, nil
	}
	ev := make([]unix.Kevent_t, 1)
	var zero unix.Timespec
	n, err := ignoringEINTR(func() (int, error) { return unix.Kevent(fd, nil, ev, &zero) })
	if err != nil {
		return WaitStatus{}, false, named("kevent", err)
	}
	if n == 0 || ev[0].Fflags&unix.NOTE_EXIT == 0 {
		return WaitStatus{}, false, nil
	}
	st := waitStatus(syscall.WaitStatus(ev[0].Data))
	exits.m[fd] = st
	return st, true, nil
}

// PeekChild reports whether the caller's child pid (exit descriptor fd)
// has ended, and how, without reaping it: from the kqueue's exit event.
func PeekChild(_, fd int) (WaitStatus, bool, error) { return exitOf(fd) }

// ReapChildWithin waits up to d for the caller's child pid to exit (its
// kqueue fd readable), then reaps it by number with wait4: [ErrRunning] if
// it has not exited by then. The kernel posts NOTE_EXIT from the exiting
// process before it is a zombie, so once the event was seen wait4 blocks
// for that last step, which nothing can hold up; otherwise it does not
// wait (WNOHANG).
func ReapChildWithin(pid, fd int, d time.Duration) (WaitStatus, error) {
	_, exited, _ := exitOf(fd)
	if !exited {
		fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
		if _, err := Poll(fds, d); err != nil {
			return WaitStatus{}, err
		}
		_, exited, _ = exitOf(fd)
	}
	opts := unix.WNOHANG
	if exited {
		opts = 0
	}
	var ws unix.WaitStatus
	var ru unix.Rusage
	got, err := ignoringEINTR(func() (int, error) { return unix.Wait4(pid, &ws, opts, &ru) })
	if err != nil {
		return WaitStatus{}, named("wait4", err)
	}
	if got != pid {
		return WaitStatus{}, ErrRunning
	}
	exits.Lock()
	delete(exits.m, fd)
	exits.Unlock()
	st := waitStatus(syscall.WaitStatus(ws))
	st.CPU = cpuOf(&ru)
	return st, nil
}

// waitStatus reads a wait(2) status.
func waitStatus(ws syscall.WaitStatus) WaitStatus {
	if ws.Exited() {
		return WaitStatus{Exited: true, Code: ws.ExitStatus()}
	}
	return WaitStatus{Signal: ws.Signal(), CoreDumped: ws.CoreDump()}
}

// KillWatched sends sig to pid by number, unless its exit descriptor fd
// ([WatchExit]) shows that it has exited: then, and when kill finds no
// process, [ErrGone]. It is for a process that is not the caller's child,
// whose identity the caller read again after the watch was registered:
// while the kqueue has no exit event, the process watched still runs, and
// holds its number, so the reads and the signal are of that process. What
// is left is the moment between the look at the kqueue (poll, which does
// not consume the event) and the kill.
func KillWatched(pid, fd int, sig syscall.Signal) error {
	fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
	n, err := Poll(fds, 0)
	if err != nil {
		return err
	}
	if n > 0 {
		return ErrGone
	}
	return SignalChild(pid, fd, sig) // by number, pid <= 1 refused
}

// SpawnGroup forks and executes exe in process group pgid (0: a group of
// its own; setpgid in the child, before its exec), in directory dir (""
// for this process's), and returns its PID with a kqueue that tells its
// exit ([WatchChild]). The filter is registered by number after the fork:
// safe, because the child is the caller's own and unreaped, so the number
// is still its own. If no kqueue can be had, the child is killed and
// reaped, and nothing is returned but the error.
func SpawnGroup(exe string, argv, env []string, dir string, files []uintptr, pgid int) (pid, fd int, err error) {
	pid, err = syscall.ForkExec(exe, argv, &syscall.ProcAttr{
		Dir:   dir,
		Env:   env,
		Files: files,
		Sys:   &syscall.SysProcAttr{Setpgid: true, Pgid: pgid},
	})
	if err != nil {
		return 0, -1, err
	}
	if fd, err = WatchChild(pid); err != nil {
		_ = SignalChild(pid, -1, syscall.SIGKILL)
		var ws syscall.WaitStatus
		_, _ = syscall.Wait4(pid, &ws, 0, nil)
		return 0, -1, fmt.Errorf("watch pid %d: %w", pid, err)
	}
	return pid, fd, nil
}
