//go:build linux && !portable && !session_starter_noraw && go1.26 && !go1.28 && (amd64 || arm64)

package rawfork

import (
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Supported reports that the raw children exist in this build.
const Supported = true

// The runtime's fork hooks, as package syscall uses them around its own
// fork-exec: BeforeFork blocks every signal and arms the stack guard,
// AfterFork undoes that in the parent, AfterForkInChild resets the
// handled signals to their default and restores the signal mask in the
// child. The runtime keeps them reachable by linkname for code outside
// the standard library ("Do not remove or change the type signature",
// runtime/proc.go), so these pulls link without linker flags; the build
// constraint holds them to the toolchains they were checked on.

//go:linkname beforeFork syscall.runtime_BeforeFork
func beforeFork()

//go:linkname afterFork syscall.runtime_AfterFork
func afterFork()

//go:linkname afterForkInChild syscall.runtime_AfterForkInChild
func afterForkInChild()

// rawSyscall6 makes a system call (syscall_linux_*.s).
func rawSyscall6(trap, a1, a2, a3, a4, a5, a6 uintptr) (r1, errno uintptr)

// cloneFlags: a plain fork (no shared memory: a child that blocks would
// make a vfork's parent wait), a pidfd from the same call, SIGCHLD at its
// exit.
const cloneFlags = unix.CLONE_PIDFD | uintptr(syscall.SIGCHLD)

// cloneArgs is struct clone_args as clone3 takes it, up to its cgroup
// field (CLONE_ARGS_SIZE_VER2).
type cloneArgs struct {
	flags, pidfd, childTID, parentTID, exitSignal, stack, stackSize, tls, setTID, setTIDSize, cgroup uint64
}

// fork clones this process, into the cgroup of the directory descriptor
// cgroup if it is >= 0 (clone3 with CLONE_INTO_CGROUP, Linux 5.7): the
// child is born there, and no process is moved between cgroups, which
// costs the kernel a synchronisation of every task of the writer's. An
// errno (ENOSYS before 5.7 or under a seccomp profile, or a cgroup that
// cannot take the child) means no child was made. In the parent it
// returns the child's PID, its pidfd in *pidfd, or the clone's errno; in
// the child it returns 0, 0, and the caller must then call its child
// function at once.
//
//go:norace
//go:noinline
func fork(pidfd *int32, cgroup int) (uintptr, syscall.Errno) {
	var args cloneArgs
	var pid, errno uintptr
	beforeFork()
	// The pointers are taken only now: the stack cannot move between the
	// fork hooks (any growth throws), so the kernel writes the pidfd where
	// *pidfd is, and args lives in this frame until the call returns in
	// both processes.
	if cgroup >= 0 {
		args.flags = unix.CLONE_PIDFD | unix.CLONE_INTO_CGROUP
		args.pidfd = uint64(uintptr(unsafe.Pointer(pidfd)))
		args.exitSignal = uint64(syscall.SIGCHLD)
		args.cgroup = uint64(cgroup)
		// Sound: stack 0 makes the child return on its copy of this frame.
		pid, errno = rawSyscall6(unix.SYS_CLONE3, uintptr(unsafe.Pointer(&args)), unsafe.Sizeof(args), 0, 0, 0, 0)
	} else {
		// Sound: the kernel writes the pidfd through the pointer before
		// clone returns in the parent; *pidfd outlives the call.
		pid, errno = rawSyscall6(unix.SYS_CLONE, cloneFlags, 0, uintptr(unsafe.Pointer(pidfd)), 0, 0, 0)
	}
	if errno != 0 || pid != 0 {
		afterFork()
		return pid, syscall.Errno(errno)
	}
	afterForkInChild()
	return 0, 0
}

// CloseRangeWorks reports whether the kernel has close_range (Linux 5.9),
// with which a child drops every descriptor it inherited but its own: a
// range above every possible descriptor closes nothing, and ENOSYS means
// there is no such call.
func CloseRangeWorks() bool {
	_, errno := rawSyscall6(unix.SYS_CLOSE_RANGE, uintptr(^uint32(0)), uintptr(^uint32(0)), 0, 0, 0, 0)
	return errno == 0
}
