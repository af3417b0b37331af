package sys

import (
	"errors"
	"fmt"
	"os"
	"sync"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// PidfdOpen wraps [unix.PidfdOpen] (Linux 5.3). The descriptor is
// close-on-exec, as every pidfd is. [ErrGone] when no thread-group leader
// holds pid: ESRCH (no task at all), EINVAL (before Linux 6.15: a thread
// that is not its group's leader, or a leader being released) and ENOENT
// (later kernels, for such a thread). A pid that is not positive names no
// process, and is an error, not gone.
func PidfdOpen(pid int) (int, error) {
	if pid <= 0 {
		return -1, fmt.Errorf("pidfd_open: pid %d: %w", pid, unix.EINVAL)
	}
	fd, err := unix.PidfdOpen(pid, 0)
	if errors.Is(err, unix.ESRCH) || errors.Is(err, unix.EINVAL) || errors.Is(err, unix.ENOENT) {
		return -1, ErrGone
	}
	return fd, named("pidfd_open", err)
}

// WatchExit returns a descriptor that becomes readable once the process
// pid has exited: a pidfd (Linux 5.3), in the portable build polled and
// never used for anything else, as kqueue's EVFILT_PROC/NOTE_EXIT is.
// [ErrGone] if there is no such process. The caller must know pid names
// the process it means (its own child, or the leader of a group it pins).
func WatchExit(pid int) (int, error) { return PidfdOpen(pid) }

// PidfdSignal wraps [unix.PidfdSendSignal] for the one process the pidfd
// names. It returns [ErrGone] once that process has been reaped.
func PidfdSignal(pidfd int, sig syscall.Signal) error {
	return pidfdSend(pidfd, sig, 0)
}

// pidfdSend is pidfd_send_signal with flags; ESRCH becomes [ErrGone].
func pidfdSend(pidfd int, sig syscall.Signal, flags int) error {
	return namedOrGone("pidfd_send_signal", unix.PidfdSendSignal(pidfd, sig, nil, flags))
}

// PidfdSignalGroup wraps [unix.PidfdSendSignal] with
// PIDFD_SIGNAL_PROCESS_GROUP (Linux 6.9): the signal goes to every member
// of the process group whose number is the pidfd's process's PID.
//
// It is safe against PID reuse: the kernel resolves the group through the
// pid object the pidfd holds, not through the number. That object's group
// list is the group the process led; once it has no member the call
// returns ESRCH ([ErrGone]), and a later group that happens to get the same
// number hangs off another pid object the pidfd never names. This holds
// whether or not the leader has been reaped.
//
// Before Linux 6.9 the flag is unknown and the call returns
// [ErrNoGroupSignal].
func PidfdSignalGroup(pidfd int, sig syscall.Signal) error {
	if !groupSignalSupported() {
		return ErrNoGroupSignal
	}
	return pidfdSend(pidfd, sig, unix.PIDFD_SIGNAL_PROCESS_GROUP)
}

// GroupSignalSupported reports whether the kernel knows
// PIDFD_SIGNAL_PROCESS_GROUP (Linux 6.9).
func GroupSignalSupported() bool { return groupSignalSupported() }

// groupSignalSupported probes once whether the kernel knows
// PIDFD_SIGNAL_PROCESS_GROUP: signal 0 (a permission check that delivers
// nothing) to this process's own group through a pidfd of itself. EINVAL
// there means the flag is unknown; EINVAL from a later call means
// something else (a bad signal number) and is returned as it is.
var groupSignalSupported = sync.OnceValue(func() bool {
	self, err := unix.PidfdOpen(os.Getpid(), 0)
	if err != nil {
		return false
	}
	defer unix.Close(self)
	return !errors.Is(unix.PidfdSendSignal(self, 0, nil, unix.PIDFD_SIGNAL_PROCESS_GROUP), unix.EINVAL)
})

// Peek reports whether the child the pidfd names has ended, and how,
// without reaping it: waitid(P_PIDFD, WEXITED|WNOHANG|WNOWAIT). An unreaped
// child stays a zombie, and a zombie keeps its PID and its process-group
// number allocated.
func Peek(pidfd int) (WaitStatus, bool, error) { return peek(unix.P_PIDFD, pidfd) }

// peek is waitid(idtype, id, WEXITED|WNOHANG|WNOWAIT): whether the child
// has ended, and how, without reaping it.
func peek(idtype, id int) (WaitStatus, bool, error) {
	info, err := waitid(idtype, id, unix.WEXITED|unix.WNOHANG|unix.WNOWAIT, nil)
	if err != nil || info.Signo == 0 {
		return WaitStatus{}, false, err
	}
	return statusOf(&info), true, nil
}

// waitid is waitid(idtype, id, options) with the reap's rusage in ru (if
// not nil), retrying EINTR. Without a state change (WNOHANG) the siginfo
// it returns has Signo 0.
func waitid(idtype, id, options int, ru *unix.Rusage) (unix.Siginfo, error) {
	var info unix.Siginfo
	_, err := ignoringEINTR(func() (struct{}, error) {
		return struct{}{}, unix.Waitid(idtype, id, &info, options, ru)
	})
	return info, named("waitid", err)
}

// ReapWithin waits up to d for the child the pidfd names to exit, then
// reaps it: poll on the pidfd (readable once the child has exited), then
// waitid(P_PIDFD, WEXITED|WNOHANG). A child still running after d — one
// that cannot be killed, say — is left unreaped and [ErrRunning] returned:
// no reap waits without a bound.
//
// A traced child (strace -f, a debugger) is readable once it has exited,
// but its tracer is told first, and it is waitable by its parent only
// after the tracer has waited for it: until d, waitid is tried again
// after pauses of 100 µs doubling to 10 ms.
func ReapWithin(pidfd int, d time.Duration) (WaitStatus, error) {
	return reapWithin(pidfd, d, unix.P_PIDFD, pidfd)
}

// reapWithin polls the exit descriptor fd for up to d, then reaps the
// child waitid(idtype, id) names, trying again while fd is readable and
// the child not yet waitable (traced), until d.
func reapWithin(fd int, d time.Duration, idtype, id int) (WaitStatus, error) {
	deadline := time.Now().Add(d)
	fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
	if _, err := Poll(fds, d); err != nil {
		return WaitStatus{}, err
	}
	pause := 100 * time.Microsecond
	for {
		var ru unix.Rusage
		info, err := waitid(idtype, id, unix.WEXITED|unix.WNOHANG, &ru)
		if err != nil {
			return WaitStatus{}, err
		}
		if info.Signo != 0 {
			st := statusOf(&info)
			st.CPU = cpuOf(&ru)
			return st, nil
		}
		left := time.Until(deadline)
		if fds[0].Revents == 0 || left <= 0 {
			return WaitStatus{}, ErrRunning
		}
		time.Sleep(min(pause, left))
		pause = min(2*pause, 10*time.Millisecond)
	}
}

// statusOf reads the SIGCHLD part of a siginfo: si_pid, si_uid and
// si_status follow the three int32 header fields and their padding.
func statusOf(info *unix.Siginfo) WaitStatus {
	raw := (*[128]byte)(unsafe.Pointer(info)) // Siginfo is 128 bytes on Linux.
	status := int(*(*int32)(unsafe.Pointer(&raw[24])))
	// si_code values from <linux/signal.h>.
	const cldExited, cldDumped = 1, 3
	switch info.Code {
	case cldExited:
		return WaitStatus{Exited: true, Code: status}
	case cldDumped:
		return WaitStatus{Signal: syscall.Signal(status), CoreDumped: true}
	default: // CLD_KILLED; stops and continues are not asked for.
		return WaitStatus{Signal: syscall.Signal(status)}
	}
}

// poll is one ppoll on fds, with a timeout of nanosecond precision (< 0:
// without limit) ([Poll]).
func poll(fds []PollFd, timeout time.Duration) (int, error) {
	var ts *unix.Timespec
	if timeout >= 0 {
		t := unix.NsecToTimespec(timeout.Nanoseconds())
		ts = &t
	}
	n, err := unix.Ppoll(fds, ts, nil)
	return n, named("ppoll", err)
}

// Pipe returns a close-on-exec pipe: read end, write end.
func Pipe() (r, w int, err error) {
	var p [2]int
	if err := unix.Pipe2(p[:], unix.O_CLOEXEC); err != nil {
		return -1, -1, named("pipe2", err)
	}
	return p[0], p[1], nil
}

// Dup2 makes newfd a copy of oldfd (dup3 without flags).
func Dup2(oldfd, newfd int) error {
	_, err := ignoringEINTR(func() (struct{}, error) { return struct{}{}, unix.Dup3(oldfd, newfd, 0) })
	return named("dup3", err)
}

// death is Linux's calls of [Die]. Core dumps are switched off by
// RLIMIT_CORE (a file core_pattern) and by PR_SET_DUMPABLE (a |pipe
// core_pattern ignores RLIMIT_CORE). The disposition is reset with a raw
// rt_sigaction: struct kernel_sigaction {handler, flags, restorer, mask},
// all zero, is SIG_DFL with no flags, and its layout is the kernel's on
// every Linux port Go has (the mask, 8 bytes, is the size passed). The
// signal is unblocked with rt_sigprocmask, which on Linux changes the
// calling thread's mask alone, and sent to that thread with tgkill.
var death = deathSteps{
	noCore: func() {
		_ = unix.Setrlimit(unix.RLIMIT_CORE, &unix.Rlimit{})
		_ = unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0)
	},
	reset: func(sig syscall.Signal) error {
		var sa [4]uintptr
		// Sound: sa outlives the raw call, which only reads it.
		_, _, errno := unix.RawSyscall6(unix.SYS_RT_SIGACTION, uintptr(sig), uintptr(unsafe.Pointer(&sa)), 0, 8, 0, 0)
		return namedErrno("rt_sigaction", errno)
	},
	unblock: func(sig syscall.Signal) error {
		var set unix.Sigset_t
		set.Val[(int(sig)-1)/64] |= 1 << ((uint(sig) - 1) % 64)
		return named("rt_sigprocmask", unix.PthreadSigmask(unix.SIG_UNBLOCK, &set, nil))
	},
	raise: SignalThread,
}

// deadlyHere are the signals besides those of every platform whose
// default action ends a process on Linux ([DeadlySignals]).
var deadlyHere = []syscall.Signal{unix.SIGSTKFLT, unix.SIGIO, unix.SIGPWR}

// fatalHere are the signals of fatalStops that only Linux has.
var fatalHere = []syscall.Signal{syscall.SIGSTKFLT}

// CGROUP2_SUPER_MAGIC is the file system type ([Fstatfs]) of cgroup2.
const CGROUP2_SUPER_MAGIC = unix.CGROUP2_SUPER_MAGIC

// Getxattr reads the extended attribute attr of path into dest and
// returns its size.
func Getxattr(path, attr string, dest []byte) (int, error) {
	n, err := unix.Getxattr(path, attr, dest)
	return n, named("getxattr", err)
}

// PidfdCgroupID returns the id of the cgroup of the process the pidfd
// names (ioctl PIDFD_GET_INFO with PIDFD_INFO_CGROUPID, Linux 6.13), and
// false when the kernel did not fill it in. ESRCH, the process reaped,
// becomes [ErrGone]; a kernel without PIDFD_GET_INFO answers ENOTTY or
// EINVAL.
func PidfdCgroupID(pidfd int) (uint64, bool, error) {
	info := unix.PidfdInfo{Mask: unix.PIDFD_INFO_CGROUPID}
	if err := unix.IoctlPidfdInfo(pidfd, &info); err != nil {
		return 0, false, namedOrGone("ioctl PIDFD_GET_INFO", err)
	}
	if info.Mask&unix.PIDFD_INFO_CGROUPID == 0 {
		return 0, false, nil
	}
	return info.Cgroupid, true, nil
}

// getTermios is the ioctl of [IsTerminal], which Linux names TCGETS.
const getTermios = unix.TCGETS

// MemfdCreate returns a close-on-exec memfd named name (memfd_create
// with MFD_CLOEXEC).
func MemfdCreate(name string) (int, error) {
	fd, err := unix.MemfdCreate(name, unix.MFD_CLOEXEC)
	return fd, named("memfd_create", err)
}

// SetName sets the calling thread's command name (PR_SET_NAME), as ps and
// /proc/PID/comm show it; the kernel truncates it to 15 bytes.
func SetName(name string) error {
	b := append([]byte(name), 0)
	// Sound: the kernel copies at most 16 bytes from b, which outlives the
	// call and is NUL-terminated.
	return named("prctl", unix.Prctl(unix.PR_SET_NAME, uintptr(unsafe.Pointer(&b[0])), 0, 0, 0))
}

// fionread is FIONREAD ([Buffered]), which Linux names TIOCINQ.
const fionread = unix.TIOCINQ

// Events, flags and options of the calls below that callers pass, as the
// system names them.
const (
	// POLLRDHUP asks [Poll] to report a socket whose peer shut its
	// writing down.
	POLLRDHUP = unix.POLLRDHUP
	// SocketHangups: Poll reports a stream socket's peer gone
	// (POLLRDHUP).
	SocketHangups = true

	WEXITED  = unix.WEXITED
	WSTOPPED = unix.WSTOPPED

	SIG_BLOCK   = unix.SIG_BLOCK
	SIG_SETMASK = unix.SIG_SETMASK
)

// Sigset_t is a signal set of [PthreadSigmask].
type Sigset_t = unix.Sigset_t

// PthreadSigmask changes the calling thread's signal mask with set as how
// says (SIG_BLOCK, SIG_SETMASK), and stores the mask it had in old unless
// old is nil. The caller has its goroutine locked to the thread.
func PthreadSigmask(how int, set, old *Sigset_t) error {
	return named("rt_sigprocmask", unix.PthreadSigmask(how, set, old))
}

// SignalThread sends sig to the calling thread (tgkill). The caller has
// its goroutine locked to the thread.
func SignalThread(sig syscall.Signal) error {
	return named("tgkill", unix.Tgkill(unix.Getpid(), unix.Gettid(), sig))
}

// Waitid waits for a state change of the child pid as waitid(P_PID, pid,
// options) does (WEXITED, WSTOPPED, WNOHANG), retrying EINTR, and reports
// whether there was one: with WNOHANG, false while there is none. What
// the change was is not kept.
func Waitid(pid, options int) (bool, error) {
	info, err := waitid(unix.P_PID, pid, options, nil)
	return err == nil && info.Signo != 0, err
}

// ChildSubreaper reports whether this process is a child subreaper
// (prctl PR_GET_CHILD_SUBREAPER, a raw call: the kernel writes the
// setting through the pointer it gets).
func ChildSubreaper() (bool, error) {
	var was int32
	// Sound: the kernel writes one int to was, which outlives the call.
	if _, _, errno := unix.RawSyscall6(unix.SYS_PRCTL, unix.PR_GET_CHILD_SUBREAPER, uintptr(unsafe.Pointer(&was)), 0, 0, 0, 0); errno != 0 {
		return false, named("prctl", errno)
	}
	return was != 0, nil
}

// SetChildSubreaper makes this process a child subreaper, or no longer
// one (prctl PR_SET_CHILD_SUBREAPER): orphans of its subtree are
// re-parented to a subreaper instead of to init.
func SetChildSubreaper(on bool) error {
	var v uintptr
	if on {
		v = 1
	}
	return named("prctl", unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, v, 0, 0, 0))
}

// Exchangeat swaps the names a and b, both in the directory of the
// descriptor dir, in one step: renameat2 with RENAME_EXCHANGE (Linux 3.15).
func Exchangeat(dir int, a, b string) error {
	return named("renameat2", unix.Renameat2(dir, a, dir, b, unix.RENAME_EXCHANGE))
}

// CanAdoptOrphans says whether a session can adopt the orphans of its
// tree (package starter's Options.Subreaper, as a child subreaper): not
// in the portable build, which takes macOS's path (macOS has none).
const CanAdoptOrphans = !Pidless

// Linux's own signals, whose default action ends a process
// ([DeadlySignals]): named as kill -l names them, so that a report or a
// record of an Engine that died of one says which.
func init() {
	signalNames[unix.SIGSTKFLT] = "STKFLT"
	signalNames[unix.SIGIO] = "IO"
	signalNames[unix.SIGPWR] = "PWR"
}

// SpawnGroup forks and executes exe in process group pgid (0: a group of
// its own; setpgid in the child, before its exec), in directory dir (""
// for this process's), and returns its PID with a pidfd from the clone,
// which names the child from its first instruction on.
func SpawnGroup(exe string, argv, env []string, dir string, files []uintptr, pgid int) (pid, fd int, err error) {
	fd = -1
	pid, err = syscall.ForkExec(exe, argv, &syscall.ProcAttr{
		Dir:   dir,
		Env:   env,
		Files: files,
		Sys:   &syscall.SysProcAttr{Setpgid: true, Pgid: pgid, PidFD: &fd},
	})
	return pid, fd, err
}
