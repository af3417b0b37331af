//go:build linux && !portable

package gate

// The raw gate: a child cloned from the starter (package rawfork) that runs
// no Go runtime of its own. Between its clone and its execve it runs only
// rawGate and the functions of rawfork it calls, which never allocate,
// grow the stack or enter the scheduler (//go:nosplit, //go:norace), and
// make raw system calls only. Everything they read was built by the
// parent before the fork, in an arena mapped outside the Go heap; the
// child has its own copy of it (and of all the starter's memory) from the
// fork on, so it never runs beside the starter in shared memory.

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"sync"
	"syscall"
	"unsafe"

	"github.com/session-starter/session-starter/internal/sys/rlimit"
	"github.com/session-starter/session-starter/internal/sys"
	"github.com/session-starter/session-starter/internal/sys/rawfork"
	"github.com/session-starter/session-starter/internal/wire"
)

// rawSupported reports whether the raw gate can be used: close_range
// (Linux 5.9) is what lets the child drop every descriptor it inherited,
// and the open-files limit the process started with must be known, or
// the Engine would get the one the Go runtime raised.
var rawSupported = sync.OnceValue(func() bool {
	if _, ok := rlimit.Original(); !ok {
		return false
	}
	return rawfork.CloseRangeWorks()
})

// rawChild is everything the raw gate needs, prepared by the parent.
type rawChild struct {
	path, sh     *byte  // the Engine's program, /bin/sh
	argv, shArgv **byte // NULL-terminated
	envv         **byte // NULL-terminated
	comm         *byte

	keep  []int32 // descriptors left open, sorted: files, goR and repW
	files []int32 // the Engine's descriptors: close-on-exec cleared
	goR   int32
	repW  int32
	cgFD  int32 // cgroup.procs of the session cgroup, or -1

	// The open-files limit to put back before execve (restore), provided
	// the current one is still raised, the one the runtime set.
	restore bool
	orig    rlimit.Limit
	raised  rlimit.Limit

	complaint []byte // "session-starter: gate: join the session cgroup: errno "

	// Buffers of the child's messages, here rather than on its stack:
	// the nosplit chains stay short enough for builds that instrument
	// every frame (go test -fuzz).
	msg, want [wire.MaxLine]byte
	num       [24]byte
}

// spawnRaw starts the raw gate: a clone of this process that leads a new
// process group, joins the session cgroup, keeps only the Engine's
// descriptors and its own two pipes, says ready and waits for the
// go-ahead, then executes the Engine's program. It speaks the same
// messages as the re-executed gate, so the rest of [Gate] serves both.
func spawnRaw(spec Spec) (*Gate, error) {
	if len(spec.Argv) == 0 {
		return nil, errors.New("gate: no argv[0] for the Engine")
	}
	shArgv := append([]string{shell, spec.Path}, spec.Argv[1:]...)
	a, err := rawfork.NewArena(rawArenaSize(spec, shArgv))
	if err != nil {
		return nil, fmt.Errorf("gate: %w", err)
	}
	// The child, if any, has its own copy of the arena.
	defer a.Free()
	c := (*rawChild)(a.Alloc(int(unsafe.Sizeof(rawChild{})), 8))
	c.goR, c.repW, c.cgFD = -1, -1, -1
	c.path, c.sh, c.comm = a.CString(spec.Path), a.CString(shell), a.CString(Comm)
	c.argv = a.CStrings(spec.Argv)
	c.shArgv = a.CStrings(shArgv)
	c.envv = a.CStrings(spec.Env)

	c.complaint = a.Bytes([]byte(rawComplaint))
	if orig, ok := rlimit.Original(); ok && orig.Max > 0 && orig.Cur < orig.Max-1 {
		// The runtime raised the soft limit to hard-1 (package syscall's
		// init); a limit found otherwise was set since, and is kept.
		c.restore, c.orig, c.raised = true, orig, rlimit.Limit{Cur: orig.Max - 1, Max: orig.Max}
	}
	files := make([]int32, 0, len(spec.Files))
	for _, fd := range spec.Files {
		files = append(files, int32(fd))
	}
	c.files = a.Int32s(files)

	goR, goW, repR, repW, err := sys.Pipes()
	if err != nil {
		return nil, fmt.Errorf("gate: %w", err)
	}
	c.goR, c.repW = int32(goR), int32(repW)
	if spec.CgroupProcs > 2 {
		c.cgFD = int32(spec.CgroupProcs)
	}
	keep := append(files, c.goR, c.repW)
	slices.Sort(keep)
	c.keep = a.Int32s(slices.Compact(keep))
	if c.path == nil || c.argv == nil || c.shArgv == nil || c.envv == nil || c.keep == nil || (len(files) > 0 && c.files == nil) || c.complaint == nil {
		sys.Close(goR)
		sys.Close(goW)
		sys.Close(repR)
		sys.Close(repW)
		// Not reached: the arena is sized above, and Spawn refused a NUL.
		return nil, errors.New("gate: the arena is too small")
	}

	pidfd := int32(-1)
	var pid uintptr
	errno := syscall.ENOSYS
	bornInto := false
	if c.cgFD >= 0 && spec.CgroupDir > 2 && !intoCgroupKills.Load() {
		// Born in the session cgroup: the child has nothing to write.
		cgFD := c.cgFD
		c.cgFD = -1
		pid, errno = forkRawGateInto(c, &pidfd, spec.CgroupDir)
		c.cgFD = cgFD
		bornInto = errno == 0
	}
	if errno != 0 {
		// Forked plainly: where clone3 is refused (a seccomp profile
		// that answers it ENOSYS, as Docker's does) or cannot place the
		// child in the cgroup; it joins by writing cgroup.procs.
		pid, errno = forkRawGate(c, &pidfd)
	}
	sys.Close(goR)
	sys.Close(repW)
	if errno != 0 {
		sys.Close(goW)
		sys.Close(repR)
		return nil, fmt.Errorf("gate: %w", os.NewSyscallError("clone", errno))
	}
	g := &Gate{PID: int(pid), Pidfd: int(pidfd), path: spec.Path, goW: goW, repR: repR, bornInto: bornInto}
	// The child leads its group only once it has run that far; set it
	// from here too, as a shell does for its jobs, so that group E exists
	// when Spawn returns and the guard can be armed on it at once. The
	// child has executed nothing, so this cannot fail with EACCES.
	if err := sys.Setpgid(g.PID, g.PID); err != nil {
		g.kill()
		return nil, fmt.Errorf("gate: %w", err)
	}
	return g, nil
}

// rawComplaint starts the raw gate's message when it cannot join the
// session cgroup.
const rawComplaint = "session-starter: gate: join the session cgroup: errno "

// rawArenaSize is what the arena of spec's gate holds: the rawChild, its
// C strings and their pointer arrays (argv, argv for /bin/sh, the
// environment), the descriptor lists and the complaint, each with room
// to be aligned.
func rawArenaSize(spec Spec, shArgv []string) int {
	const word = int(unsafe.Sizeof(uintptr(0)))
	size := int(unsafe.Sizeof(rawChild{})) + word
	for _, s := range []string{spec.Path, shell, Comm} {
		size += len(s) + 1
	}
	for _, ss := range [][]string{spec.Argv, shArgv, spec.Env} {
		size += (len(ss)+1)*word + word
		for _, s := range ss {
			size += len(s) + 1
		}
	}
	// files, then keep (files and the two pipes), int32 each, aligned.
	size += 4*len(spec.Files) + 4 + 4*(len(spec.Files)+2) + 4
	return size + len(rawComplaint)
}

// forkRawGate clones the raw gate; in the parent it returns the child's
// PID (its pidfd in *pidfd), in the child it never returns.
//
//go:norace
//go:noinline
func forkRawGate(c *rawChild, pidfd *int32) (uintptr, syscall.Errno) {
	pid, errno := rawfork.Fork(pidfd)
	if errno != 0 || pid != 0 {
		return pid, errno
	}
	rawGate(unsafe.Pointer(c))
	return 0, 0 // not reached: rawGate exits or executes
}

// forkRawGateInto is forkRawGate into the cgroup of the directory
// descriptor cgroup; an errno means no child was made.
//
//go:norace
//go:noinline
func forkRawGateInto(c *rawChild, pidfd *int32, cgroup int) (uintptr, syscall.Errno) {
	pid, errno := rawfork.ForkInto(pidfd, cgroup)
	if errno != 0 || pid != 0 {
		return pid, errno
	}
	rawGate(unsafe.Pointer(c))
	return 0, 0 // not reached: rawGate exits or executes
}

// rawGate is the child, from its fork to its execve or exit; raw is its
// rawChild. The runtime's fork hook put the default signal handlers and
// the signal mask back. One function, not a wrapper: the linker checks
// that the deepest nosplit chain fits.
//
//go:nosplit
//go:norace
func rawGate(raw unsafe.Pointer) {
	// Sound: raw is the child's own copy of the rawChild in the arena.
	c := (*rawChild)(raw)
	rawfork.SetName(c.comm)
	pid, _, _ := syscall.RawSyscall6(syscall.SYS_GETPID, 0, 0, 0, 0, 0, 0)
	if _, _, e := syscall.RawSyscall6(syscall.SYS_SETPGID, 0, 0, 0, 0, 0, 0); e != 0 {
		rawfork.Exit(exitNotReleased)
	}
	if c.cgFD >= 0 {
		// "0" is the writing process to cgroup.procs: every process of
		// the Engine's tree is born in the session cgroup from here on.
		zero := [1]byte{'0'}
		if e := rawfork.Write(c.cgFD, zero[:]); e != 0 {
			rawfork.Write(2, c.complaint)
			rawfork.Write(2, c.num[:rawfork.PutNum(c.num[:], 0, uintptr(e), '\n')])
			rawfork.Exit(exitNotReleased)
		}
	}
	// Keep only the Engine's descriptors and the two pipes: a descriptor
	// of the starter's kept here (the write end of our own go-ahead pipe,
	// another session's) would keep this child waiting after the
	// starter is gone, or reach the Engine.
	rawfork.KeepOnly(c.keep)
	// The Engine's descriptors are close-on-exec in the starter's table
	// (it marks the launcher's so that no helper inherits them); in this
	// copy of the table they are handed on.
	for _, fd := range c.files {
		if _, _, e := syscall.RawSyscall6(syscall.SYS_FCNTL, uintptr(fd), syscall.F_SETFD, 0, 0, 0, 0); e != 0 {
			rawfork.Exit(exitNotReleased)
		}
	}

	msg := c.msg[:]
	if rawfork.Write(c.repW, msg[:rawfork.PutNum(msg, rawfork.PutStr(msg, 0, wire.Ready), pid, '\n')]) != 0 {
		rawfork.Exit(exitNotReleased)
	}
	// The go-ahead is exactly "go PID\n", read a byte at a time as the
	// re-executed gate reads it; an end of file (the starter is gone),
	// an error or anything else ends this child without an exec.
	want := c.want[:]
	goAhead := want[:rawfork.PutNum(want, rawfork.PutStr(want, 0, wire.Go), pid, '\n')]
	n := 0
	for n < len(goAhead) {
		r, _, e := syscall.RawSyscall6(syscall.SYS_READ, uintptr(c.goR), uintptr(unsafe.Pointer(&msg[n])), 1, 0, 0, 0)
		if e == syscall.EINTR {
			continue
		}
		if e != 0 || r != 1 || msg[n] != goAhead[n] {
			rawfork.Exit(exitNotReleased)
		}
		n++
	}
	syscall.RawSyscall6(syscall.SYS_CLOSE, uintptr(c.goR), 0, 0, 0, 0, 0)

	if c.restore {
		var now rlimit.Limit
		_, _, e := syscall.RawSyscall6(syscall.SYS_PRLIMIT64, 0, rawfork.RlimitNofile, 0, uintptr(unsafe.Pointer(&now)), 0, 0)
		if e == 0 && now.Cur == c.raised.Cur && now.Max == c.raised.Max {
			syscall.RawSyscall6(syscall.SYS_PRLIMIT64, 0, rawfork.RlimitNofile, uintptr(unsafe.Pointer(&c.orig)), 0, 0, 0)
		}
	}
	_, _, e := syscall.RawSyscall6(syscall.SYS_EXECVE, uintptr(unsafe.Pointer(c.path)), uintptr(unsafe.Pointer(c.argv)), uintptr(unsafe.Pointer(c.envv)), 0, 0, 0)
	if e == syscall.ENOEXEC {
		// As execvp: a file the kernel cannot run is a shell script.
		_, _, e = syscall.RawSyscall6(syscall.SYS_EXECVE, uintptr(unsafe.Pointer(c.sh)), uintptr(unsafe.Pointer(c.shArgv)), uintptr(unsafe.Pointer(c.envv)), 0, 0, 0)
	}
	// The report pipe is close-on-exec: after a successful execve the
	// starter reads its end; after a failure, the errno.
	rawfork.Write(c.repW, msg[:rawfork.PutNum(msg, rawfork.PutStr(msg, 0, wire.ExecFailed), uintptr(e), '\n')])
	if e == syscall.ENOENT || e == syscall.ENOTDIR {
		rawfork.Exit(127)
	}
	rawfork.Exit(126)
}
