//go:build linux && !portable && !session_starter_noraw && go1.26 && !go1.28 && (amd64 || arm64)

package rawfork

import (
	"errors"
	"os"
	"slices"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/session-starter/session-starter/internal/sys"
	"github.com/session-starter/session-starter/internal/sys/rlimit"
	"github.com/session-starter/session-starter/internal/wire"
)

// gateChild is everything the raw gate reads, built by the parent in the
// gate's arena before the fork. The child writes only its scratch fields.
type gateChild struct {
	path, sh           *byte  // the Engine's program, the shell
	argv, shArgv, envv **byte // NULL-terminated
	comm               *byte
	complaint          *byte
	complaintLen       uintptr
	keep, files        *int32 // sorted descriptors kept; the Engine's
	nkeep, nfiles      uintptr
	goR, repW, cgFD    int32

	restore        bool // put orig back before execve, if raised is in force
	orig, raised   rlimit.Limit
	ready, goAhead line // "ready ", "go "
	failed         line // "exec-failed "
	readyLen       uintptr
	goLen          uintptr
	failedLen      uintptr
	zero           [1]byte // "0", for cgroup.procs

	// LISTEN_PID= and LISTEN_PIDFDID= (their lengths; 0: not patched),
	// each completed with a number and a NUL by the child.
	listenPID, listenFDID       line
	listenPIDLen, listenFDIDLen uintptr

	// Scratch.
	st          unix.Stat_t
	pid, n, e   uintptr
	cur         rlimit.Limit
	msg, digits line
	want        line
	wantLen     uintptr
}

// StartGate starts a raw gate: a fork of this process that leads a new
// process group, joins the session cgroup, keeps only the Engine's
// descriptors and its own two pipes, says ready and waits for the
// go-ahead, then executes the Engine's program. Its messages are the
// re-executed gate's (package wire). An error means no child was made.
func StartGate(spec GateSpec) (Gate, error) {
	if len(spec.Argv) == 0 {
		return Gate{}, errors.New("no argv[0] for the Engine")
	}
	shArgv := append([]string{spec.Shell, spec.Path}, spec.Argv[1:]...)
	// The gateChild, the C strings and their arrays, and the descriptor
	// lists: files, then keep (files and the two pipes), int32 each.
	strs := cSize([]string{spec.Path, spec.Shell, spec.Comm, spec.Complaint}, spec.Argv, shArgv, spec.Env)
	a, err := newArena(int(unsafe.Sizeof(gateChild{})) + 8 + strs + 8*(len(spec.Files)+2))
	if err != nil {
		return Gate{}, err
	}
	// The child, if any, has its own copy of the arena from the fork on.
	defer a.Free()
	c := (*gateChild)(a.Alloc(int(unsafe.Sizeof(gateChild{})), 8))
	c.goR, c.repW, c.cgFD = -1, -1, -1
	c.path, c.sh, c.comm = a.CString(spec.Path), a.CString(spec.Shell), a.CString(spec.Comm)
	c.argv, c.shArgv, c.envv = a.CStrings(spec.Argv), a.CStrings(shArgv), a.CStrings(spec.Env)
	c.complaintLen = uintptr(len(spec.Complaint))
	c.complaint = a.CString(spec.Complaint)
	c.restore, c.orig, c.raised = spec.Restore, spec.Orig, spec.Raised
	c.readyLen = uintptr(copy(c.ready[:], wire.Ready+" "))
	c.goLen = uintptr(copy(c.goAhead[:], wire.Go+" "))
	c.failedLen = uintptr(copy(c.failed[:], wire.ExecFailed+" "))
	c.zero[0] = '0'
	if c.envv != nil {
		env := unsafe.Slice(c.envv, len(spec.Env))
		if i := spec.ListenPID - 1; i >= 0 && i < len(env) {
			c.listenPIDLen = uintptr(copy(c.listenPID[:], "LISTEN_PID="))
			env[i] = &c.listenPID[0]
		}
		if i := spec.ListenPIDFDID - 1; i >= 0 && i < len(env) {
			c.listenFDIDLen = uintptr(copy(c.listenFDID[:], "LISTEN_PIDFDID="))
			env[i] = &c.listenFDID[0]
		}
	}
	c.files, c.nfiles = a.Int32s(spec.Files), uintptr(len(spec.Files))

	goR, goW, repR, repW, err := sys.Pipes()
	if err != nil {
		return Gate{}, err
	}
	c.goR, c.repW = int32(goR), int32(repW)
	keep := append(slices.Clone(spec.Files), goR, repW)
	slices.Sort(keep)
	keep = slices.Compact(keep)
	c.keep, c.nkeep = a.Int32s(keep), uintptr(len(keep))
	if c.path == nil || c.sh == nil || c.comm == nil || c.complaint == nil || c.argv == nil || c.shArgv == nil || c.envv == nil || c.keep == nil || (len(spec.Files) > 0 && c.files == nil) {
		for _, fd := range []int{goR, goW, repR, repW} {
			sys.Close(fd)
		}
		// Not reached: the arena is sized above; a NUL was refused by
		// the caller.
		return Gate{}, errors.New("the gate's arena is too small, or a string holds a NUL")
	}

	pidfd := int32(-1)
	var pid uintptr
	errno := syscall.ENOSYS
	bornInto := false
	if spec.CgroupProcs > 2 && spec.CgroupDir > 2 && !spec.IntoRefused {
		// Born in the session cgroup: the child has nothing to write.
		pid, errno = forkGate(c, &pidfd, spec.CgroupDir)
		bornInto = errno == 0
	}
	if errno != 0 {
		// Forked plainly: where clone3 is refused (a seccomp profile that
		// answers it ENOSYS, as Docker's does), the cgroup cannot take the
		// child, or no cgroup; it joins by writing cgroup.procs.
		if spec.CgroupProcs > 2 {
			c.cgFD = int32(spec.CgroupProcs)
		}
		pid, errno = forkGate(c, &pidfd, -1)
	}
	sys.Close(goR)
	sys.Close(repW)
	if errno != 0 {
		sys.Close(goW)
		sys.Close(repR)
		return Gate{}, os.NewSyscallError("clone", errno)
	}
	return Gate{PID: int(pid), Pidfd: int(pidfd), GoW: goW, RepR: repR, BornInto: bornInto}, nil
}

// forkGate forks the raw gate, born in the cgroup of the directory
// descriptor cgroup if it is >= 0. In the parent it returns the child's
// PID (its pidfd in *pidfd) or the errno; in the child it never returns.
//
//go:norace
//go:noinline
func forkGate(c *gateChild, pidfd *int32, cgroup int) (uintptr, syscall.Errno) {
	pid, errno := fork(pidfd, cgroup)
	if errno != 0 || pid != 0 {
		return pid, errno
	}
	gateMain(c)
	return 0, 0 // not reached: gateMain exits or executes
}

// gateMain is the raw gate, from its fork to its execve or exit. The
// runtime's fork hook put the default signal handlers and the signal mask
// back.
//
//go:nosplit
//go:norace
func gateMain(c *gateChild) {
	setName(c.comm)
	c.pid, _ = rawSyscall6(unix.SYS_GETPID, 0, 0, 0, 0, 0, 0)
	if _, e := rawSyscall6(unix.SYS_SETPGID, 0, 0, 0, 0, 0, 0); e != 0 {
		exit(wire.ExitNotReleased)
	}
	if c.cgFD >= 0 {
		gateJoin(c)
	}
	// Keep only the Engine's descriptors and the two pipes: a descriptor
	// of the starter's kept here (the write end of our own go-ahead
	// pipe, another session's) would keep this child waiting after the
	// starter is gone, or reach the Engine.
	keepOnly(c.keep, c.nkeep)
	gateHandOn(c)
	gateListen(c)
	gateReady(c)
	gateAwaitGo(c)
	gateExec(c)
}

// gateJoin moves the gate into the session cgroup: "0" written to
// cgroup.procs is the writing process. Every process of the Engine's tree
// is born there from then on.
//
//go:nosplit
//go:norace
func gateJoin(c *gateChild) {
	if c.e = writeAll(c.cgFD, &c.zero[0], 1); c.e != 0 {
		writeAll(2, c.complaint, c.complaintLen)
		c.n = putNum(&c.msg, 0, c.e, '\n', &c.digits)
		writeAll(2, &c.msg[0], c.n)
		exit(wire.ExitNotReleased)
	}
}

// gateHandOn clears close-on-exec of the Engine's descriptors: they are
// close-on-exec in the starter's table (it marks the launcher's so that
// no helper inherits them); in this copy of the table they are handed on.
//
//go:nosplit
//go:norace
func gateHandOn(c *gateChild) {
	for c.n = 0; c.n < c.nfiles; c.n++ {
		// Sound: files points at nfiles int32s of the arena.
		fd := *(*int32)(unsafe.Add(unsafe.Pointer(c.files), 4*c.n))
		if _, e := rawSyscall6(unix.SYS_FCNTL, uintptr(fd), syscall.F_SETFD, 0, 0, 0, 0); e != 0 {
			exit(wire.ExitNotReleased)
		}
	}
}

// gateListen completes the socket-activation variables the parent asked
// to patch: LISTEN_PID with this process's PID, which the Engine keeps,
// and LISTEN_PIDFDID with the inode number of a pidfd of it (pidfs:
// Linux 6.9), the same for the Engine. A pidfd that cannot be had ends
// the gate without an exec: a variable left naming the starter would
// tell the Engine its sockets are not its own.
//
//go:nosplit
//go:norace
func gateListen(c *gateChild) {
	if c.listenPIDLen > 0 {
		putNum(&c.listenPID, c.listenPIDLen, c.pid, 0, &c.digits)
	}
	if c.listenFDIDLen == 0 {
		return
	}
	fd, e := rawSyscall6(unix.SYS_PIDFD_OPEN, c.pid, 0, 0, 0, 0, 0)
	if e != 0 {
		exit(wire.ExitNotReleased)
	}
	// Sound: st is in the arena.
	_, e = rawSyscall6(unix.SYS_FSTAT, fd, uintptr(unsafe.Pointer(&c.st)), 0, 0, 0, 0)
	rawSyscall6(unix.SYS_CLOSE, fd, 0, 0, 0, 0, 0)
	if e != 0 {
		exit(wire.ExitNotReleased)
	}
	putNum(&c.listenFDID, c.listenFDIDLen, uintptr(c.st.Ino), 0, &c.digits)
}

// gateReady says "ready PID" and builds the one go-ahead it obeys, "go
// PID".
//
//go:nosplit
//go:norace
func gateReady(c *gateChild) {
	c.n = putLine(&c.msg, &c.ready, c.readyLen, c.pid, '\n', &c.digits)
	if writeAll(c.repW, &c.msg[0], c.n) != 0 {
		exit(wire.ExitNotReleased)
	}
	c.wantLen = putLine(&c.want, &c.goAhead, c.goLen, c.pid, '\n', &c.digits)
}

// gateAwaitGo reads the go-ahead a byte at a time, as the re-executed
// gate reads it: anything but exactly "go PID\n" — an end of file (the
// starter is gone), an error, another byte — ends the gate without an
// exec.
//
//go:nosplit
//go:norace
func gateAwaitGo(c *gateChild) {
	for c.n = 0; c.n < c.wantLen; c.n++ {
		r, e := read(uintptr(c.goR), &c.msg[c.n&lineMask], 1)
		if e != 0 || r != 1 || c.msg[c.n&lineMask] != c.want[c.n&lineMask] {
			exit(wire.ExitNotReleased)
		}
	}
	rawSyscall6(unix.SYS_CLOSE, uintptr(c.goR), 0, 0, 0, 0, 0)
}

// gateExec puts back the open-files limit the process started with (if
// the one package syscall raised is still in force), executes the
// Engine's program (a file the kernel cannot run as a shell script, as
// execvp does), and reports a failure's errno on the report pipe, which
// is close-on-exec: after a successful execve the starter reads its end.
//
//go:nosplit
//go:norace
func gateExec(c *gateChild) {
	if c.restore {
		// Sound: cur and orig are in the arena.
		_, e := rawSyscall6(unix.SYS_PRLIMIT64, 0, unix.RLIMIT_NOFILE, 0, uintptr(unsafe.Pointer(&c.cur)), 0, 0)
		if e == 0 && c.cur.Cur == c.raised.Cur && c.cur.Max == c.raised.Max {
			rawSyscall6(unix.SYS_PRLIMIT64, 0, unix.RLIMIT_NOFILE, uintptr(unsafe.Pointer(&c.orig)), 0, 0, 0)
		}
	}
	// Sound: the strings and arrays are NUL-terminated in the arena.
	_, c.e = rawSyscall6(unix.SYS_EXECVE, uintptr(unsafe.Pointer(c.path)), uintptr(unsafe.Pointer(c.argv)), uintptr(unsafe.Pointer(c.envv)), 0, 0, 0)
	if c.e == uintptr(syscall.ENOEXEC) {
		_, c.e = rawSyscall6(unix.SYS_EXECVE, uintptr(unsafe.Pointer(c.sh)), uintptr(unsafe.Pointer(c.shArgv)), uintptr(unsafe.Pointer(c.envv)), 0, 0, 0)
	}
	c.n = putLine(&c.msg, &c.failed, c.failedLen, c.e, '\n', &c.digits)
	writeAll(c.repW, &c.msg[0], c.n)
	if c.e == uintptr(syscall.ENOENT) || c.e == uintptr(syscall.ENOTDIR) {
		exit(wire.ExitNotFound)
	}
	exit(wire.ExitCannotExecute)
}
