//go:build linux && !portable

// Package rawfork makes children of this process that run no Go runtime of
// their own: a plain fork between the runtime's fork hooks ([Fork],
// [ForkInto]), the shape of package syscall's own fork-exec child; after
// it, the child runs only functions that never allocate, grow the stack
// or enter the scheduler, and makes raw system calls only. The raw gate (which executes
// the Engine) and the raw guard (which never executes anything) are such
// children.
//
// A child function and everything it calls must be //go:nosplit (the
// runtime's BeforeFork arms a stack guard that throws on any growth in the
// child; the linker checks that a chain of nosplit calls fits in the stack
// that is left) and //go:norace (the race runtime cannot run in the
// child). A forked child reads only what the parent built before the
// fork, and may write to it: it has a copy of the parent's memory, and
// never runs beside the parent in the same memory.
package rawfork

import (
	"runtime"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The runtime's fork hooks, as package syscall uses them around its own
// fork-exec: BeforeFork blocks every signal and arms the stack guard,
// AfterFork undoes that in the parent, AfterForkInChild resets the
// handled signals to their default and restores the signal mask in the
// child. The runtime keeps them reachable by linkname for code outside
// the standard library ("Do not remove or change the type signature",
// runtime/proc.go), so these pulls link without linker flags.

//go:linkname beforeFork syscall.runtime_BeforeFork
func beforeFork()

//go:linkname afterFork syscall.runtime_AfterFork
func afterFork()

//go:linkname afterForkInChild syscall.runtime_AfterForkInChild
func afterForkInChild()

// Numbers the children use, named here so that their packages need no
// more than package syscall.
const (
	SysCloseRange           = unix.SYS_CLOSE_RANGE
	SysPidfdSendSignal      = unix.SYS_PIDFD_SEND_SIGNAL
	PidfdSignalProcessGroup = unix.PIDFD_SIGNAL_PROCESS_GROUP
	PrSetName               = unix.PR_SET_NAME
	RlimitNofile            = unix.RLIMIT_NOFILE
	PollIn                  = unix.POLLIN
	PollPri                 = unix.POLLPRI
	AtRemoveDir             = unix.AT_REMOVEDIR
	SigIgn                  = 1 // SIG_IGN
)

// cloneFlags: a plain fork (no shared memory: a child that blocks would
// make a vfork's parent wait), a pidfd from the same call, SIGCHLD at its
// exit.
const cloneFlags = unix.CLONE_PIDFD | uintptr(syscall.SIGCHLD)

// Fork clones this process. In the parent it returns the child's PID, its
// pidfd in *pidfd, or the clone's errno; in the child it returns 0, 0, and
// the caller must then call its child function at once — nothing but
// //go:nosplit //go:norace code may run in the child. The caller must be
// //go:norace itself.
//
//go:norace
//go:noinline
func Fork(pidfd *int32) (uintptr, syscall.Errno) {
	beforeFork()
	var pid uintptr
	var errno syscall.Errno
	if runtime.GOARCH == "s390x" {
		// clone takes its flags second there.
		pid, _, errno = syscall.RawSyscall6(syscall.SYS_CLONE, 0, cloneFlags, uintptr(unsafe.Pointer(pidfd)), 0, 0, 0)
	} else {
		// Sound: the kernel writes the pidfd through the pointer before
		// clone returns in the parent; *pidfd outlives the call.
		pid, _, errno = syscall.RawSyscall6(syscall.SYS_CLONE, cloneFlags, 0, uintptr(unsafe.Pointer(pidfd)), 0, 0, 0)
	}
	if errno != 0 || pid != 0 {
		afterFork()
		return pid, errno
	}
	afterForkInChild()
	return 0, 0
}

// cloneArgs is struct clone_args as clone3 takes it, up to its cgroup
// field (CLONE_ARGS_SIZE_VER2).
type cloneArgs struct {
	flags, pidfd, childTID, parentTID, exitSignal, stack, stackSize, tls, setTID, setTIDSize, cgroup uint64
}

// argsFor is clone3's arguments for a child of flags with its pidfd in
// *pidfd and SIGCHLD at its exit, born in the cgroup of the directory
// descriptor cgroup if it is >= 0. Called between the fork hooks, where
// nothing may grow the stack.
//
//go:nosplit
//go:norace
func argsFor(flags uint64, pidfd *int32, cgroup int) cloneArgs {
	args := cloneArgs{
		flags:      flags | unix.CLONE_PIDFD,
		pidfd:      uint64(uintptr(unsafe.Pointer(pidfd))),
		exitSignal: uint64(syscall.SIGCHLD),
	}
	if cgroup >= 0 {
		args.flags |= unix.CLONE_INTO_CGROUP
		args.cgroup = uint64(cgroup)
	}
	return args
}

// ForkInto is [Fork] into the cgroup of the directory descriptor cgroup
// (clone3 with CLONE_INTO_CGROUP, Linux 5.7): the child is born there, and
// no process is moved between cgroups, which costs the kernel a
// synchronisation of every task of the writer's. An errno (ENOSYS before
// 5.7, or a cgroup that cannot take the child) means no child was made:
// the caller may fork plainly and move it.
//
//go:norace
//go:noinline
func ForkInto(pidfd *int32, cgroup int) (uintptr, syscall.Errno) {
	beforeFork()
	// Taken only now: the stack cannot move from here to the clone (any
	// growth throws), so the kernel writes the pidfd where *pidfd is.
	args := argsFor(0, pidfd, cgroup)
	// Sound: args is in this frame, which lives until the call returns in
	// both processes; stack 0 makes the child return on its copy of it.
	pid, _, errno := syscall.RawSyscall6(unix.SYS_CLONE3, uintptr(unsafe.Pointer(&args)), unsafe.Sizeof(args), 0, 0, 0, 0)
	if errno != 0 || pid != 0 {
		afterFork()
		return pid, errno
	}
	afterForkInChild()
	return 0, 0
}

// CloseRangeWorks reports whether the kernel has close_range (Linux 5.9),
// with which a child drops every descriptor it inherited but its own: a
// range above every possible descriptor closes nothing, and ENOSYS means
// there is no such call.
func CloseRangeWorks() bool {
	_, _, errno := syscall.RawSyscall6(SysCloseRange, uintptr(^uint32(0)), uintptr(^uint32(0)), 0, 0, 0, 0)
	return errno == 0
}

// KeepOnly closes every descriptor but those of keep, which is sorted.
//
//go:nosplit
//go:norace
func KeepOnly(keep []int32) {
	next := int32(0)
	for _, fd := range keep {
		if fd > next {
			syscall.RawSyscall6(SysCloseRange, uintptr(next), uintptr(fd-1), 0, 0, 0, 0)
		}
		next = fd + 1
	}
	syscall.RawSyscall6(SysCloseRange, uintptr(next), uintptr(^uint32(0)), 0, 0, 0, 0)
}

// SetName sets the command name (/proc/PID/comm) to the NUL-terminated
// name.
//
//go:nosplit
//go:norace
func SetName(name *byte) {
	// Sound: name is a NUL-terminated string built by the parent.
	syscall.RawSyscall6(syscall.SYS_PRCTL, PrSetName, uintptr(unsafe.Pointer(name)), 0, 0, 0, 0)
}

// PutNum writes a space, n in decimal and end into b at i, and returns
// the index after them. b has room for them. No copy: under the race
// detector that is a call that may grow the stack.
//
//go:nosplit
//go:norace
func PutNum(b []byte, i int, n uintptr, end byte) int {
	var digits [20]byte
	d := len(digits)
	for {
		d--
		digits[d] = byte('0' + n%10)
		n /= 10
		if n == 0 {
			break
		}
	}
	b[i] = ' '
	i++
	for ; d < len(digits); d++ {
		b[i] = digits[d]
		i++
	}
	b[i] = end
	return i + 1
}

// PutStr writes s into b at i and returns the index after it.
//
//go:nosplit
//go:norace
func PutStr(b []byte, i int, s string) int {
	for j := 0; j < len(s); j++ {
		b[i] = s[j]
		i++
	}
	return i
}

// Write writes all of p to fd and returns the errno of a failure.
//
//go:nosplit
//go:norace
func Write(fd int32, p []byte) syscall.Errno {
	for len(p) > 0 {
		n, _, e := syscall.RawSyscall6(syscall.SYS_WRITE, uintptr(fd), uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)), 0, 0, 0)
		if e == syscall.EINTR {
			continue
		}
		if e != 0 {
			return e
		}
		p = p[n:]
	}
	return 0
}

// Exit ends the child with status.
//
//go:nosplit
//go:norace
func Exit(status int) {
	for {
		syscall.RawSyscall6(syscall.SYS_EXIT_GROUP, uintptr(status), 0, 0, 0, 0, 0)
	}
}

// Now reads CLOCK_MONOTONIC in nanoseconds, with a system call (the vDSO
// is the runtime's).
//
//go:nosplit
//go:norace
func Now() int64 {
	var ts syscall.Timespec
	// Sound: ts outlives the call.
	syscall.RawSyscall6(syscall.SYS_CLOCK_GETTIME, unix.CLOCK_MONOTONIC, uintptr(unsafe.Pointer(&ts)), 0, 0, 0, 0)
	return int64(ts.Sec)*1e9 + int64(ts.Nsec)
}

// PollFd is struct pollfd.
type PollFd struct {
	Fd      int32
	Events  int16
	Revents int16
}

// Poll waits for the events of fds, at most timeout nanoseconds (< 0:
// without a limit), and returns the errno of a failure; EINTR is retried
// with the same timeout. Entries with Fd < 0 are ignored, as poll does.
//
//go:nosplit
//go:norace
func Poll(fds []PollFd, timeout int64) syscall.Errno {
	// struct timespec as this architecture's ppoll takes it: two words.
	var ts [2]uintptr
	tsp := uintptr(0)
	if timeout >= 0 {
		ts[0], ts[1] = uintptr(timeout/1e9), uintptr(timeout%1e9)
		tsp = uintptr(unsafe.Pointer(&ts))
	}
	for {
		// Sound: fds and ts outlive the call.
		_, _, e := syscall.RawSyscall6(syscall.SYS_PPOLL, uintptr(unsafe.Pointer(&fds[0])), uintptr(len(fds)), tsp, 0, 0, 0)
		if e != syscall.EINTR {
			return e
		}
	}
}

// Ignore sets the disposition of sig to SIG_IGN.
//
//go:nosplit
//go:norace
func Ignore(sig syscall.Signal) {
	// struct sigaction as rt_sigaction takes it: handler, flags, restorer,
	// mask; zero but for the handler. On architectures without a
	// restorer field the mask comes third, and is zero as well.
	var act [4]uintptr
	act[0] = SigIgn
	// Sound: act outlives the call; the mask is 8 bytes.
	syscall.RawSyscall6(syscall.SYS_RT_SIGACTION, uintptr(sig), uintptr(unsafe.Pointer(&act)), 0, 8, 0, 0)
}
