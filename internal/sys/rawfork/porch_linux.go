//go:build linux && !portable && !session_starter_noraw && go1.26 && !go1.28 && (amd64 || arm64)

package rawfork

import (
	"errors"
	"fmt"
	"os"
	"syscall"
	"unsafe"

	"github.com/session-starter/session-starter/internal/wire"
	"golang.org/x/sys/unix"
)

// The porch: the guard as a forked child that runs no Go runtime. It does
// only what must work when a Go runtime cannot start — under the very
// pressure (RLIMIT_NPROC, memory) that often kills the starter: it arms
// (descriptor slots, checks, ignored signals), gives back its copy of the
// starter's memory, waits for the finish line or the starter's end, tells
// with a cheap test whether the session is empty, and once the starter is
// gone strikes every holder with SIGKILL for the first rounds, and on
// while it finds marked processes. Then it executes the guard proper (the
// binary opened at arming, through its descriptor), which verifies and
// ends what is left with the one end routine. Of /proc it reads only
// what its sweep of the marked needs (sweep_linux.go): a storm of them
// outside group E can hold every slot of the user's process limit, and
// the guard proper's runtime cannot start until they are gone.

// porchChild is everything the porch reads and writes, in its arena: its
// own mapping, which it keeps when it gives back the rest of the
// starter's memory.
type porchChild struct {
	comm, root, maps, killName, evName *byte   // NUL-terminated
	empty                              [1]byte // "", for execveat
	// ignore is struct sigaction as rt_sigaction takes it: the handler
	// SIG_IGN (1) first, the rest (flags, restorer, mask) zero.
	ignore [4]uintptr
	one    [1]byte // "1", for cgroup.kill

	from  [wire.Slots]int32
	keep  [wire.Slots]int32
	nkeep uintptr

	pgid, pageSize              uintptr
	budget                      int64
	firstRound, maxRound        int64
	firstLook, maxLook          int64
	strikes                     uintptr
	release                     bool
	cgKill, cgEvents            int32
	exitDone, exitRefused       uintptr
	codes                       Refusals
	armed, finish, refused      line
	armedLen, finishLen, refLen uintptr

	argv   [2]**byte
	envv   **byte
	numArg line // the number of the guard proper's command line, NUL-terminated
	tried  bool // the guard proper was executed once for a finish
	sw     sweep

	// Scratch.
	msg, digits         line
	i, j, k, n, r, e    uintptr
	lo, hi, cur, sp     uintptr
	selfLo, selfHi      uintptr
	stackLo, stackHi    uintptr
	deadline, next, now int64
	round, look, wait   int64
	rounds              uintptr
	field, at           uintptr
	live, engine, group bool
	gap, named          bool
	cg, marked, same    bool
	ts                  syscall.Timespec
	fds                 [2]pollFd
	evBuf               [128]byte
	mapsBuf             [64 << 10]byte
}

// maps and evBuf are indexed through masks: their sizes are powers of
// two. maxPending bounds a line of the starter's: a message is at most
// lineMask+1 bytes, and anything much longer is not the starter's.
const (
	mapsMask   = 64<<10 - 1
	evMask     = 127
	maxPending = 4 * (lineMask + 1)
)

// StartPorch starts the porch and returns without waiting for it; its
// armed line (or refusal) comes on the pipe at From[wire.SlotArmed]. An error
// means no child was made.
func StartPorch(spec PorchSpec) (Porch, error) {
	if spec.From[wire.SlotExe] < 0 || spec.NumArg <= 0 {
		return Porch{}, errors.New("no guard binary to execute")
	}
	for _, argv := range spec.Argv {
		if spec.NumArg >= len(argv) {
			return Porch{}, errors.New("the guard's command line has no room for its number")
		}
	}
	names := []string{spec.Comm, "/", "/proc/self/maps", "cgroup.kill", "cgroup.events"}
	a, err := newArena(int(unsafe.Sizeof(porchChild{})) + 64 + cSize(spec.Argv[0], spec.Argv[1], spec.Env, names))
	if err != nil {
		return Porch{}, err
	}
	// The child has its copy of the arena from the fork on.
	defer a.Free()
	c := (*porchChild)(a.Alloc(int(unsafe.Sizeof(porchChild{})), 8))
	c.selfLo, c.selfHi = a.bounds()
	for i, p := range []**byte{&c.comm, &c.root, &c.maps, &c.killName, &c.evName} {
		if *p = a.CString(names[i]); *p == nil {
			return Porch{}, fmt.Errorf("the porch's names %q do not fit, or hold a NUL", names)
		}
	}
	c.one[0] = '1'
	c.ignore[0] = 1 // SIG_IGN
	c.pgid, c.pageSize = uintptr(spec.PGID), uintptr(os.Getpagesize())
	c.budget = int64(spec.Budget)
	c.firstRound, c.maxRound = int64(spec.FirstRound), int64(spec.MaxRound)
	c.firstLook, c.maxLook = int64(spec.FirstLook), int64(spec.MaxLook)
	c.strikes = uintptr(spec.Strikes)
	c.cgKill, c.cgEvents = -1, -1
	c.release = spec.Release
	c.exitDone, c.exitRefused = uintptr(spec.ExitDone), uintptr(spec.ExitRefused)
	c.codes = spec.Codes
	for _, m := range []struct {
		dst *line
		n   *uintptr
		s   string
	}{
		{&c.armed, &c.armedLen, string(wire.Encode(wire.Armed, spec.PGID))},
		{&c.finish, &c.finishLen, string(wire.Encode(wire.Finish, spec.PGID))},
		{&c.refused, &c.refLen, wire.Refused + " "},
	} {
		if len(m.s) > len(m.dst) {
			return Porch{}, fmt.Errorf("message %q does not fit", m.s)
		}
		*m.n = uintptr(copy(m.dst[:], m.s))
	}
	for slot, fd := range spec.From {
		c.from[slot] = int32(fd)
		if fd >= 0 {
			c.keep[c.nkeep] = int32(slot)
			c.nkeep++
		}
	}
	for mode, argv := range spec.Argv {
		c.argv[mode] = a.CStrings(argv)
		if c.argv[mode] == nil {
			return Porch{}, errors.New("the guard's command line does not fit, or holds a NUL")
		}
		// Sound: the array has len(argv)+1 pointers in the arena; the
		// number's slot points at numArg, which the child fills.
		*(**byte)(unsafe.Add(unsafe.Pointer(c.argv[mode]), 8*spec.NumArg)) = &c.numArg[0]
	}
	if c.envv = a.CStrings(spec.Env); c.envv == nil {
		return Porch{}, errors.New("the guard's environment does not fit, or holds a NUL")
	}
	if err := c.sw.set(spec); err != nil {
		return Porch{}, err
	}

	pidfd := int32(-1)
	pid, errno := forkPorch(c, &pidfd)
	if errno != 0 {
		return Porch{}, os.NewSyscallError("clone", errno)
	}
	return Porch{PID: int(pid), Pidfd: int(pidfd)}, nil
}

// forkPorch forks the porch; in the parent it returns the child's PID (its
// pidfd in *pidfd), in the child it never returns.
//
//go:norace
//go:noinline
func forkPorch(c *porchChild, pidfd *int32) (uintptr, syscall.Errno) {
	pid, errno := fork(pidfd, -1)
	if errno != 0 || pid != 0 {
		return pid, errno
	}
	porchMain(c)
	return 0, 0 // not reached: porchMain exits or executes
}

// porchMain is the porch, from its fork to its exit or the guard proper's
// execution.
//
//go:nosplit
//go:norace
func porchMain(c *porchChild) {
	porchShed(c)
	if porchArm(c) {
		// A finish is obeyed at once only when the cheap test shows the
		// session empty (or, where the starter may release it, the
		// Engine exited); else the guard proper looks (a zombie left in
		// E); if it cannot be executed, the porch keeps guarding.
		for porchWait(c) {
			if porchEmpty(c) || c.release && porchEngineExited(c) {
				exit(c.exitDone)
			}
			if !c.tried {
				c.tried = true
				porchExec(c, VerifyFinish, uintptr(c.budget))
			}
		}
	}
	// The starter is gone: strike, then hand over to the guard proper. If
	// it cannot be executed (its runtime would not start, a seccomp
	// profile refuses it), the porch ends what it can alone.
	c.deadline = now(&c.ts) + c.budget
	c.next, c.round, c.look = c.deadline-c.budget, c.firstRound, c.firstLook
	porchRounds(c, c.strikes)
	porchExec(c, VerifyGone, uintptr(c.deadline))
	porchRounds(c, ^uintptr(0))
	exit(c.exitDone)
}

// porchArm sets the porch up, checks group E and says armed; it reports
// false when the starter is gone already, and exits when it refuses.
//
//go:nosplit
//go:norace
func porchArm(c *porchChild) bool {
	setName(c.comm)
	rawSyscall6(unix.SYS_SETPGID, 0, 0, 0, 0, 0, 0)
	c.sw.self, _ = rawSyscall6(unix.SYS_GETPID, 0, 0, 0, 0, 0, 0)
	// Sound: root is NUL-terminated in the arena. The porch holds no
	// directory a launcher may want to unmount.
	rawSyscall6(unix.SYS_CHDIR, uintptr(unsafe.Pointer(c.root)), 0, 0, 0, 0, 0)
	porchSlots(c)
	if c.from[wire.SlotCgroup] >= 0 {
		// Sound: the names are NUL-terminated in the arena. Close-on-exec:
		// the guard proper opens its own.
		r1, e1 := rawSyscall6(unix.SYS_OPENAT, wire.SlotCgroup, uintptr(unsafe.Pointer(c.killName)), syscall.O_WRONLY|syscall.O_CLOEXEC, 0, 0, 0)
		r2, e2 := rawSyscall6(unix.SYS_OPENAT, wire.SlotCgroup, uintptr(unsafe.Pointer(c.evName)), syscall.O_RDONLY|syscall.O_CLOEXEC, 0, 0, 0)
		if e1 != 0 || e2 != 0 {
			porchRefuse(c, uintptr(c.codes.NoCgroup))
		}
		c.cgKill, c.cgEvents = int32(r1), int32(r2)
	}
	// Keep guarding through terminal and hang-up signals; only SIGKILL
	// ends the guard. Ignored dispositions pass to the guard proper,
	// which ignores the same.
	porchIgnore(c)
	if own, e := rawSyscall6(unix.SYS_GETPGID, 0, 0, 0, 0, 0, 0); e != 0 || own == c.pgid {
		porchRefuse(c, uintptr(c.codes.InGroup))
	}
	switch c.e = groupSignal(0); c.e {
	case 0:
	case uintptr(syscall.ESRCH):
		porchRefuse(c, uintptr(c.codes.GroupGone))
	case uintptr(syscall.EINVAL):
		porchRefuse(c, uintptr(c.codes.NoGroupSignal))
	default:
		porchRefuse(c, uintptr(c.codes.Setup))
	}
	// A failed write: the starter is gone already, which is what the
	// guard guards against.
	c.e = writeAll(wire.SlotArmed, &c.armed[0], c.armedLen)
	rawSyscall6(unix.SYS_CLOSE, wire.SlotArmed, 0, 0, 0, 0, 0)
	return c.e == 0
}

// porchSlots puts the porch's descriptors at their slots, and closes every
// other: none of the launcher's (its standard output may be a pipe the
// launcher reads to its end), none of the starter's other sessions'.
// First every one out of the way (above the slots), then into its slot;
// the guard binary's close-on-exec.
//
//go:nosplit
//go:norace
func porchSlots(c *porchChild) {
	for c.i = 0; c.i < wire.Slots; c.i++ {
		if fd := c.from[c.i&15%wire.Slots]; fd >= 0 {
			moved, e := rawSyscall6(unix.SYS_FCNTL, uintptr(fd), syscall.F_DUPFD, wire.Slots, 0, 0, 0)
			if e != 0 {
				exit(c.exitRefused)
			}
			c.from[c.i&15%wire.Slots] = int32(moved)
		}
	}
	for c.i = 0; c.i < wire.Slots; c.i++ {
		if fd := c.from[c.i&15%wire.Slots]; fd >= 0 {
			flags := uintptr(0)
			if c.i == wire.SlotExe {
				flags = syscall.O_CLOEXEC
			}
			if _, e := rawSyscall6(unix.SYS_DUP3, uintptr(fd), c.i, flags, 0, 0, 0); e != 0 {
				exit(c.exitRefused)
			}
		}
	}
	keepOnly(&c.keep[0], c.nkeep)
}

// porchIgnore ignores HUP, INT, TERM, QUIT, TSTP, TTIN, TTOU and PIPE.
//
//go:nosplit
//go:norace
func porchIgnore(c *porchChild) {
	for c.i = 1; c.i < 32; c.i++ {
		switch syscall.Signal(c.i) {
		case syscall.SIGHUP, syscall.SIGINT, syscall.SIGTERM, syscall.SIGQUIT, syscall.SIGTSTP, syscall.SIGTTIN, syscall.SIGTTOU, syscall.SIGPIPE:
			// Sound: ignore is in the arena (made by the parent).
			rawSyscall6(unix.SYS_RT_SIGACTION, c.i, uintptr(unsafe.Pointer(&c.ignore)), 0, 8, 0, 0)
		}
	}
}

// porchRefuse tells the starter why the guard will not arm, and exits.
//
//go:nosplit
//go:norace
func porchRefuse(c *porchChild, code uintptr) {
	c.n = putLine(&c.msg, &c.refused, c.refLen, code, '\n', &c.digits)
	writeAll(wire.SlotArmed, &c.msg[0], c.n)
	exit(c.exitRefused)
}

// groupSignal sends sig to group E through the gate's pidfd and returns
// the errno: ESRCH once E has no member, zombies included. The kernel
// finds the group through the pid object the pidfd holds, so the signal
// reaches nothing once E is gone, even if its number was handed out
// again.
//
//go:nosplit
//go:norace
func groupSignal(sig uintptr) uintptr {
	_, e := rawSyscall6(unix.SYS_PIDFD_SEND_SIGNAL, wire.SlotGate, sig, 0, unix.PIDFD_SIGNAL_PROCESS_GROUP, 0, 0)
	return e
}

// porchWait reads the starter's messages while it watches the starter: it
// reports true once a complete line has come that is exactly the finish
// line (consumed), false when the starter is gone (its pidfd readable, or
// the end of the pipe) or a line is anything else (fail closed). The
// pipe is read a byte at a time without blocking, and watched with the
// starter only when it is empty, so a partial message cannot stall the
// porch while the starter dies.
//
//go:nosplit
//go:norace
func porchWait(c *porchChild) bool {
	if _, e := rawSyscall6(unix.SYS_FCNTL, wire.SlotFinish, syscall.F_SETFL, syscall.O_NONBLOCK, 0, 0, 0); e != 0 {
		return false
	}
	for c.k, c.same = 0, true; ; {
		c.r, c.e = read(wire.SlotFinish, &c.msg[0], 1)
		switch {
		case c.e == uintptr(syscall.EAGAIN):
			c.fds[0] = pollFd{fd: wire.SlotFinish, events: unix.POLLIN}
			c.fds[1] = pollFd{fd: wire.SlotStarter, events: unix.POLLIN}
			if poll(&c.fds, -1, &c.ts) != 0 || c.fds[0].revents == 0 && c.fds[1].revents != 0 {
				return false // the starter is gone
			}
		case c.e != 0 || c.r == 0:
			return false // the end of the pipe
		case c.k >= maxPending:
			return false // longer than any message of the starter's
		default:
			c.same = c.same && c.msg[0] == c.finish[c.k&lineMask]
			c.k++
			if c.msg[0] == '\n' {
				return c.same && c.k == c.finishLen
			}
		}
	}
}

// porchEmpty is the cheap test: the Engine has exited (its pidfd is
// readable), group E has no member at all (the group signal 0 answers
// ESRCH: zombies count as members), and the session cgroup shows
// "populated 0" (or is gone). It errs only towards "not empty".
//
//go:nosplit
//go:norace
func porchEmpty(c *porchChild) bool {
	return porchEngineExited(c) && groupSignal(0) == uintptr(syscall.ESRCH) && porchCgroupEmpty(c)
}

// porchEngineExited reports whether the process of the gate's pidfd has
// exited: its pidfd is readable.
//
//go:nosplit
//go:norace
func porchEngineExited(c *porchChild) bool {
	c.fds[0] = pollFd{fd: wire.SlotGate, events: unix.POLLIN}
	c.fds[1] = pollFd{fd: -1}
	return poll(&c.fds, 0, &c.ts) == 0 && c.fds[0].revents != 0
}

// porchCgroupEmpty reports whether the session cgroup has no process,
// below it included ("populated 0" in its cgroup.events), or is gone
// (removed: ENODEV); true without a cgroup. Reading it also re-arms its
// POLLPRI.
//
//go:nosplit
//go:norace
func porchCgroupEmpty(c *porchChild) bool {
	if c.cgEvents < 0 {
		return true
	}
	// Sound: evBuf is in the arena.
	c.r, c.e = rawSyscall6(unix.SYS_PREAD64, uintptr(c.cgEvents), uintptr(unsafe.Pointer(&c.evBuf[0])), evMask+1, 0, 0, 0)
	if c.e == uintptr(syscall.ENODEV) {
		return true
	}
	if c.e != 0 {
		return false
	}
	// The first line, "populated 0" or "populated 1": the kernel writes
	// it first.
	const key = "populated "
	for c.i = 0; c.i < uintptr(len(key)) && c.evBuf[c.i&evMask] == key[c.i%uintptr(len(key))]; c.i++ {
	}
	return c.i == uintptr(len(key)) && c.r > c.i && c.evBuf[c.i&evMask] == '0'
}

// porchRounds sends SIGKILL to every holder still live at once — the
// broadest first: the cgroup, group E, the Engine (which may have left
// E), the marked — in rounds paced as the end routine's, until the cheap
// test holds and no marked process is found, max rounds were sent, the
// next is due and no marked process is found, or the deadline.
//
//go:nosplit
//go:norace
func porchRounds(c *porchChild, max uintptr) {
	for {
		c.engine = !porchEngineExited(c)
		c.group = groupSignal(0) != uintptr(syscall.ESRCH)
		c.cg = !porchCgroupEmpty(c)
		c.marked = porchSweep(c, 0) > 0
		if !c.engine && !c.group && !c.cg && !c.marked {
			return
		}
		c.now = now(&c.ts)
		if c.now >= c.deadline {
			return
		}
		if c.now >= c.next {
			if c.rounds >= max && !c.marked {
				return
			}
			if c.cg {
				writeAll(c.cgKill, &c.one[0], 1)
			}
			if c.group {
				groupSignal(uintptr(syscall.SIGKILL))
			}
			if c.engine {
				rawSyscall6(unix.SYS_PIDFD_SEND_SIGNAL, wire.SlotGate, uintptr(syscall.SIGKILL), 0, 0, 0, 0)
			}
			if c.marked {
				// Stopped first, then killed: a stopped process cannot
				// fork into the slot a killed one frees.
				porchSweep(c, uintptr(syscall.SIGSTOP))
				porchSweep(c, uintptr(syscall.SIGKILL))
			}
			c.rounds++
			c.next = c.now + c.round
			c.round = min(2*c.round, c.maxRound)
		}
		porchPause(c)
	}
}

// porchPause waits until a holder may have emptied (the Engine's pidfd,
// the cgroup's events), the next round is due or the deadline; group E
// and the marked, whose last exit nothing announces, are looked at again
// after a backoff.
//
//go:nosplit
//go:norace
func porchPause(c *porchChild) {
	c.wait = min(c.next, c.deadline) - c.now
	if c.group || c.marked {
		c.wait = min(c.wait, c.look)
		c.look = min(2*c.look, c.maxLook)
	}
	c.fds[0] = pollFd{fd: -1}
	c.fds[1] = pollFd{fd: -1}
	if c.engine {
		c.fds[0] = pollFd{fd: wire.SlotGate, events: unix.POLLIN}
	}
	if c.cg {
		c.fds[1] = pollFd{fd: c.cgEvents, events: unix.POLLPRI}
	}
	poll(&c.fds, c.wait, &c.ts)
}

// porchExec executes the guard proper for mode with the number num in its
// command line; it returns only if that failed.
//
//go:nosplit
//go:norace
func porchExec(c *porchChild, mode int, num uintptr) {
	c.n = putNum(&c.numArg, 0, num, 0, &c.digits)
	// Sound: the path is "" (AT_EMPTY_PATH: the descriptor itself), argv
	// and the environment are NULL-terminated arrays of the arena.
	rawSyscall6(unix.SYS_EXECVEAT, wire.SlotExe, uintptr(unsafe.Pointer(&c.empty[0])), uintptr(unsafe.Pointer(c.argv[mode&1])), uintptr(unsafe.Pointer(c.envv)), unix.AT_EMPTY_PATH, 0)
}

// stackKeep is how much of the stack the porch runs on it keeps on each
// side of where porchShed runs: its frames above (up to forkPorch) and
// every nosplit chain below are well inside it.
const stackKeep = 32 << 10

// porchShed gives back (MADV_DONTNEED) the porch's copy of every
// private, anonymous, writable mapping of the starter it was forked from,
// but for its arena and the stack around where it runs: the porch reads
// nothing else. Without this it would keep, for the whole session, its
// own copy of every page the starter writes after the fork (the Go heap,
// stacks, the runtime's data). A maps file larger than the buffer leaves
// everything as it is.
//
//go:nosplit
//go:norace
func porchShed(c *porchChild) {
	// Sound: only the address of this frame's argument is taken, to know
	// the stack.
	c.sp = uintptr(unsafe.Pointer(&c))
	c.stackLo, c.stackHi = (c.sp-stackKeep)&^(c.pageSize-1), (c.sp+stackKeep+c.pageSize-1)&^(c.pageSize-1)
	// Sound: maps is NUL-terminated in the arena.
	c.r, c.e = rawSyscall6(unix.SYS_OPENAT, atFDCWD, uintptr(unsafe.Pointer(c.maps)), syscall.O_RDONLY|syscall.O_CLOEXEC, 0, 0, 0)
	if c.e != 0 {
		return
	}
	for c.n = 0; c.n <= mapsMask; {
		// At most the rest of mapsBuf is read.
		c.k, c.e = read(c.r, &c.mapsBuf[c.n&mapsMask], mapsMask+1-c.n)
		if c.e != 0 {
			c.n = mapsMask + 1 // give up: leave everything
			break
		}
		if c.k == 0 {
			break
		}
		c.n += c.k
	}
	rawSyscall6(unix.SYS_CLOSE, c.r, 0, 0, 0, 0, 0)
	if c.n > mapsMask {
		return
	}
	c.field, c.at, c.lo, c.hi, c.live, c.gap, c.named = 0, 0, 0, 0, true, false, false
	for c.i = 0; c.i < c.n; c.i++ {
		porchShedByte(c, c.mapsBuf[c.i&mapsMask])
	}
}

// atFDCWD is AT_FDCWD: a path relative to the working directory.
const atFDCWD = ^uintptr(99) // -100

// porchShedByte reads the next byte of the maps, whose lines are
// "START-END PERMS OFFSET DEV INODE [PATH]" (fields 0 to 5, the numbers
// in hexadecimal but the inode), and at the end of a line gives its
// mapping back if it is writable (PERMS "?w?p"), private, anonymous
// (INODE 0) and has no PATH, but for the kept ranges. A PATH of the
// form "[anon:NAME]" is no file: it is the name an anonymous mapping
// was given (Go 1.25 on names its heap so, on kernels that keep names).
//
//go:nosplit
//go:norace
func porchShedByte(c *porchChild, b byte) {
	if c.gap && b != ' ' && b != '\n' {
		c.field, c.at, c.gap = c.field+1, 0, false
	}
	switch {
	case b == '\n':
		if c.live && (c.field == 4 || c.named) {
			porchDrop(c)
		}
		c.field, c.at, c.lo, c.hi, c.live, c.gap, c.named = 0, 0, 0, 0, true, false, false
	case b == ' ':
		c.gap = true
	case c.field == 0 && b == '-':
		c.lo, c.hi = c.hi, 0
	case c.field == 0 && b <= '9':
		c.hi = c.hi<<4 | uintptr(b-'0')
	case c.field == 0:
		c.hi = c.hi<<4 | uintptr(b-'a'+10)
	case c.field == 1:
		c.live = c.live && (c.at != 1 || b == 'w') && (c.at != 3 || b == 'p')
		c.at++
	case c.field == 4:
		c.live = c.live && b == '0' // printed in decimal: 0 is "0"
	case c.field == 5 && c.at < uintptr(len(anonName)):
		c.live = c.live && b == anonName[c.at]
		c.at++
		c.named = c.at == uintptr(len(anonName))
	}
}

// anonName starts the name of a named anonymous mapping in the maps.
const anonName = "[anon:"

// porchDrop gives back the mapping [c.lo, c.hi) minus the two kept
// ranges, in address order.
//
//go:nosplit
//go:norace
func porchDrop(c *porchChild) {
	c.cur = c.lo
	if c.stackLo < c.selfLo {
		porchDropUpTo(c, c.stackLo, c.stackHi)
		porchDropUpTo(c, c.selfLo, c.selfHi)
	} else {
		porchDropUpTo(c, c.selfLo, c.selfHi)
		porchDropUpTo(c, c.stackLo, c.stackHi)
	}
	if c.cur < c.hi {
		rawSyscall6(unix.SYS_MADVISE, c.cur, c.hi-c.cur, unix.MADV_DONTNEED, 0, 0, 0)
	}
}

// porchDropUpTo gives back [c.cur, min(xlo, c.hi)) and moves c.cur past
// the kept range [xlo, xhi).
//
//go:nosplit
//go:norace
func porchDropUpTo(c *porchChild, xlo, xhi uintptr) {
	if xhi <= c.cur || xlo >= c.hi {
		return
	}
	if xlo > c.cur {
		rawSyscall6(unix.SYS_MADVISE, c.cur, xlo-c.cur, unix.MADV_DONTNEED, 0, 0, 0)
	}
	c.cur = max(c.cur, xhi)
}
