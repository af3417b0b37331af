//go:build linux && !portable

package guard

// The raw guard: a child cloned from the starter (package rawfork) that
// runs no Go runtime of its own and executes nothing. For the session's
// whole life it runs only rawArm, rawFinished and rawEnd (called by
// forkRawGuard in the child) and the functions below them, which
// never allocate, grow the stack or enter the scheduler (//go:nosplit,
// //go:norace), and make raw system calls only. Everything they read was
// built by the parent before the clone, in the guard's own mapping
// (rawChild); what they write (the pipe's bytes, a poll list) is there
// too. Right after the fork the child gives back every other page of the
// starter's but its stack (rawShed): code here must read no Go global and
// no object of the Go heap, or it reads zeros.
//
// It is used where the kernel signals a group through a pidfd (Linux 6.9)
// and has close_range (5.9): then its holders are each one descriptor
// and one system call, and it needs no pin. One thread and about 100 KiB
// of memory of its own, instead of a second Go runtime: the re-executed
// guard is 4-5 threads and about a mebibyte.

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"syscall"
	"unsafe"

	"github.com/session-starter/session-starter/internal/sys"
	"github.com/session-starter/session-starter/internal/sys/rawfork"
	"github.com/session-starter/session-starter/internal/wire"
)

// rawSupported reports whether the raw guard can be used: the kernel
// signals a group through a pidfd (no pin needed) and has close_range.
var rawSupported = sync.OnceValue(func() bool {
	return sys.CanSignalGroup() && rawfork.CloseRangeWorks()
})

// rawChild is everything the raw guard needs, prepared by the parent. It
// holds no pointer and lives in a mapping of its own, outside the Go heap
// (newRawChild): the child keeps that mapping and its stack, and gives
// back every other page of the starter it was forked from (rawShed).
type rawChild struct {
	comm     [16]byte // "session-guard", NUL-terminated, as the names below
	root     [2]byte  // "/"
	proc     [8]byte  // "/proc"
	maps     [24]byte // "/proc/self/maps"
	killName [16]byte // "cgroup.kill"
	evName   [16]byte // "cgroup.events"
	cgName   [256]byte
	// from holds, for each of the guard's descriptor slots (the
	// re-executed guard's: 0-2 /dev/null, fdGate … fdCgroupP), the
	// starter's descriptor that goes there, or -1.
	from  [fdCgroupP + 1]int32
	keep  [fdCgroupP + 1]int32 // the slots that are filled
	nkeep int

	pgid     uintptr
	pageSize uintptr
	ttyGroup int32
	budget   int64 // nanoseconds
	tty      bool
	cgroup   bool

	cgKill, cgEvents int32 // opened by the child, in cgroup mode

	armedMsg, finishMsg [wire.MaxLine]byte // "armed E\n", "finish E\n"
	armedLen, finishLen int
	msg                 [wire.MaxLine]byte
	pending             [maxMessages]byte
	np                  int
	evBuf               [128]byte
	fds                 [2]rawfork.PollFd
	dents               [4096]byte     // of /proc
	path                [32]byte       // "PID/stat"
	stat                [1024]byte     // its content
	one                 [1]byte        // "1"
	mapsBuf             [64 << 10]byte // /proc/self/maps
}

// newRawChild maps a rawChild of its own, outside the Go heap (an
// anonymous, private mapping: the fork gives the child its copy), and
// returns it with its arena, which the parent frees after the fork.
func newRawChild() (*rawChild, *rawfork.Arena, error) {
	size := int(unsafe.Sizeof(rawChild{}))
	a, err := rawfork.NewArena(size)
	if err != nil {
		return nil, nil, err
	}
	// Sound: the arena's memory is page-aligned, zeroed and as long as a
	// rawChild, which holds no pointer the garbage collector would have to
	// know about.
	return (*rawChild)(a.Alloc(size, 8)), a, nil
}

// putName copies name into dst with a NUL after it.
func putName(dst []byte, name string) error {
	if len(name) >= len(dst) || strings.IndexByte(name, 0) >= 0 {
		return fmt.Errorf("guard: name %q does not fit", name)
	}
	dst[copy(dst, name)] = 0
	return nil
}

// spawnRaw starts the raw guard and returns without waiting for it;
// [Guard.AwaitArmed] then reads its armed line, as from the re-executed
// guard. The raw guard has the re-executed guard's descriptors at the
// same numbers, and nothing else of the starter's.
func spawnRaw(spec Spec) (*Guard, error) {
	c, a, err := newRawChild()
	if err != nil {
		return nil, fmt.Errorf("guard: %w", err)
	}
	// The child has its copy of the mapping from the fork on.
	defer a.Free()
	c.pgid, c.budget, c.cgKill, c.cgEvents = uintptr(spec.PGID), int64(spec.Budget), -1, -1
	c.pageSize = uintptr(os.Getpagesize())
	for i := range c.from {
		c.from[i] = -1
	}
	for _, n := range []struct {
		dst  []byte
		name string
	}{{c.comm[:], Comm}, {c.root[:], "/"}, {c.proc[:], "/proc"}, {c.maps[:], "/proc/self/maps"}, {c.killName[:], "cgroup.kill"}, {c.evName[:], "cgroup.events"}} {
		if err := putName(n.dst, n.name); err != nil {
			return nil, err
		}
	}
	c.armedLen = copy(c.armedMsg[:], wire.Encode(wire.Armed, spec.PGID))
	c.finishLen = copy(c.finishMsg[:], wire.Encode(wire.Finish, spec.PGID))
	c.one[0] = '1'
	if spec.Cgroup > 2 {
		// The checks the re-executed guard makes of its descriptors, made
		// here of the same open files.
		if code := checkCgroup(spec.Cgroup, spec.CgroupParent, spec.CgroupName); code != 0 {
			return nil, fmt.Errorf("guard: %w", refusal(code))
		}
		if err := putName(c.cgName[:], spec.CgroupName); err != nil {
			return nil, err
		}
		c.cgroup = true
		c.from[fdCgroup], c.from[fdCgroupP] = int32(spec.Cgroup), int32(spec.CgroupParent)
	}
	null, err := sys.Open("/dev/null", syscall.O_RDWR)
	if err != nil {
		return nil, fmt.Errorf("guard: %w", err)
	}
	defer sys.Close(null)
	self, err := sys.PidfdOpen(os.Getpid())
	if err != nil {
		return nil, fmt.Errorf("guard: %w", err)
	}
	defer sys.Close(self)
	finR, finW, armR, armW, err := sys.Pipes()
	if err != nil {
		return nil, fmt.Errorf("guard: %w", err)
	}
	defer sys.Close(finR)
	defer sys.Close(armW)
	c.from[0], c.from[1], c.from[2] = int32(null), int32(null), int32(null)
	c.from[fdGate], c.from[fdFinish], c.from[fdStarter], c.from[fdArmed] = int32(spec.GatePidfd), int32(finR), int32(self), int32(armW)
	if spec.TTY > 0 {
		c.tty, c.ttyGroup = true, int32(spec.TTYGroup)
		c.from[fdTTY] = int32(spec.TTY)
	}
	for slot, fd := range c.from {
		if fd >= 0 {
			c.keep[c.nkeep] = int32(slot)
			c.nkeep++
		}
	}

	pidfd := int32(-1)
	pid, errno := forkRawGuard(c, &pidfd)
	if errno != 0 {
		sys.Close(finW)
		sys.Close(armR)
		return nil, fmt.Errorf("guard: %w", os.NewSyscallError("clone", errno))
	}
	g := &Guard{PID: int(pid), Pidfd: int(pidfd), pgid: spec.PGID, finW: finW, armR: armR}
	// The child leads its own group only once it has run that far; set it
	// from here too, so that the group the starter must never signal
	// exists when Spawn returns.
	if err := sys.Setpgid(g.PID, g.PID); err != nil && !errors.Is(err, syscall.ESRCH) {
		g.Abandon()
		return nil, fmt.Errorf("guard: %w", err)
	}
	return g, nil
}

// forkRawGuard clones the raw guard; in the parent it returns the child's
// PID (its pidfd in *pidfd), in the child it never returns.
//
//go:norace
//go:noinline
func forkRawGuard(c *rawChild, pidfd *int32) (uintptr, syscall.Errno) {
	pid, errno := rawfork.Fork(pidfd)
	if errno != 0 || pid != 0 {
		return pid, errno
	}
	// The child: the guard's Main without a runtime. Each step is a
	// chain of nosplit calls of its own, which the linker checks against
	// the stack that is left.
	rawShed(c)
	if rawArm(c) && rawFinished(c) {
		rawfork.Exit(exitDone)
	}
	rawEnd(c)
	return 0, 0 // not reached: rawEnd exits
}

// rawArm sets the guard up, checks group E and says armed; it reports
// false when the starter is gone already, and exits when it refuses.
//
//go:nosplit
//go:norace
func rawArm(c *rawChild) bool {
	rawfork.SetName(&c.comm[0])
	syscall.RawSyscall6(syscall.SYS_SETPGID, 0, 0, 0, 0, 0, 0)
	// Sound: c.root is a NUL-terminated string built by the parent. The
	// guard holds no directory a launcher may want to unmount.
	syscall.RawSyscall6(syscall.SYS_CHDIR, uintptr(unsafe.Pointer(&c.root[0])), 0, 0, 0, 0, 0)
	// Its own descriptors at their slots, and nothing else: none of the
	// launcher's (its standard output may be a pipe the launcher reads to
	// its end), none of the starter's other sessions'. First every one
	// out of the way (above the slots), then into its slot.
	for slot, fd := range c.from {
		if fd >= 0 {
			moved, _, e := syscall.RawSyscall6(syscall.SYS_FCNTL, uintptr(fd), syscall.F_DUPFD, uintptr(len(c.from)), 0, 0, 0)
			if e != 0 {
				rawfork.Exit(exitRefused)
			}
			c.from[slot] = int32(moved)
		}
	}
	for slot, fd := range c.from {
		if fd >= 0 {
			if _, _, e := syscall.RawSyscall6(syscall.SYS_DUP3, uintptr(fd), uintptr(slot), 0, 0, 0, 0); e != 0 {
				rawfork.Exit(exitRefused)
			}
		}
	}
	rawfork.KeepOnly(c.keep[:c.nkeep])
	if c.cgroup {
		// Sound: the names are NUL-terminated strings built by the parent.
		kill, _, e1 := syscall.RawSyscall6(syscall.SYS_OPENAT, fdCgroup, uintptr(unsafe.Pointer(&c.killName[0])), syscall.O_WRONLY|syscall.O_CLOEXEC, 0, 0, 0)
		events, _, e2 := syscall.RawSyscall6(syscall.SYS_OPENAT, fdCgroup, uintptr(unsafe.Pointer(&c.evName[0])), syscall.O_RDONLY|syscall.O_CLOEXEC, 0, 0, 0)
		if e1 != 0 || e2 != 0 {
			rawRefuse(c, refusedNoCgroup)
		}
		c.cgKill, c.cgEvents = int32(kill), int32(events)
	}
	// Keep guarding through terminal and hang-up signals; only SIGKILL
	// ends the guard. It executes nothing, so this reaches no Engine.
	for _, sig := range [...]syscall.Signal{syscall.SIGHUP, syscall.SIGINT, syscall.SIGTERM, syscall.SIGQUIT, syscall.SIGTSTP, syscall.SIGTTIN, syscall.SIGTTOU, syscall.SIGPIPE} {
		rawfork.Ignore(sig)
	}
	if own, _, e := syscall.RawSyscall6(syscall.SYS_GETPGID, 0, 0, 0, 0, 0, 0); e != 0 || own == c.pgid {
		rawRefuse(c, refusedInGroup)
	}
	switch e := rawGroupSignal(c, 0); e {
	case 0:
	case syscall.ESRCH:
		rawRefuse(c, refusedGroupGone)
	case syscall.EINVAL:
		rawRefuse(c, refusedNoGroupSignal)
	default:
		rawRefuse(c, refusedSetup)
	}
	// A failed write: the starter is gone already, which is what the
	// guard guards against.
	ok := rawfork.Write(fdArmed, c.armedMsg[:c.armedLen]) == 0
	syscall.RawSyscall6(syscall.SYS_CLOSE, fdArmed, 0, 0, 0, 0, 0)
	return ok
}

// rawStackKeep is how much of the stack the child runs on it keeps on
// each side of where rawShed runs: its frames above (up to forkRawGuard)
// and every nosplit chain below are well inside it.
const rawStackKeep = 32 << 10

// rawShed gives back (MADV_DONTNEED) the child's copy of every private,
// anonymous, writable mapping of the starter it was forked from, but for
// c's own mapping and the stack around where it runs: the guard reads
// nothing else. Without this it would keep, for the whole session, its
// own copy of every page the starter writes after the fork (the Go heap,
// stacks, the runtime's data). A maps file larger than the buffer leaves
// everything as it is.
//
//go:nosplit
//go:norace
func rawShed(c *rawChild) {
	var here byte
	// Sound: only the address of a local is taken, to know the stack.
	sp := uintptr(unsafe.Pointer(&here))
	page := c.pageSize
	stackLo, stackHi := (sp-rawStackKeep)&^(page-1), (sp+rawStackKeep+page-1)&^(page-1)
	selfLo := uintptr(unsafe.Pointer(c))
	selfHi := (selfLo + unsafe.Sizeof(*c) + page - 1) &^ (page - 1)
	// Sound: c.maps is a NUL-terminated string built by the parent.
	fd, _, e := syscall.RawSyscall6(syscall.SYS_OPENAT, rawAtFDCWD, uintptr(unsafe.Pointer(&c.maps[0])), syscall.O_RDONLY|syscall.O_CLOEXEC, 0, 0, 0)
	if e != 0 {
		return
	}
	n := 0
	for n < len(c.mapsBuf) {
		// Sound: c.mapsBuf outlives the call.
		r, _, e := syscall.RawSyscall6(syscall.SYS_READ, fd, uintptr(unsafe.Pointer(&c.mapsBuf[n])), uintptr(len(c.mapsBuf)-n), 0, 0, 0)
		if e == syscall.EINTR {
			continue
		}
		if e != 0 {
			n = len(c.mapsBuf) // give up: leave everything
			break
		}
		if r == 0 {
			break
		}
		n += int(r)
	}
	syscall.RawSyscall6(syscall.SYS_CLOSE, fd, 0, 0, 0, 0, 0)
	if n >= len(c.mapsBuf) {
		return
	}
	// Lines: "START-END PERMS OFFSET DEV INODE [PATH]".
	for i := 0; i < n; {
		lo, i2 := rawHex(c, i, n)
		hi, i3 := rawHex(c, i2+1, n)
		p := i3 + 1
		if p+4 > n {
			return
		}
		writable, private := c.mapsBuf[p+1] == 'w', c.mapsBuf[p+3] == 'p'
		p = rawSkipField(c, p, n)   // perms
		p = rawSkipField(c, p, n)   // offset
		p = rawSkipField(c, p, n)   // dev
		inode, q := rawDec(c, p, n) // inode
		for q < n && c.mapsBuf[q] == ' ' {
			q++
		}
		anonymous := inode == 0 && q < n && c.mapsBuf[q] == '\n'
		for q < n && c.mapsBuf[q] != '\n' {
			q++
		}
		i = q + 1
		if !writable || !private || !anonymous {
			continue
		}
		// The mapping minus the two kept ranges, in address order.
		x1lo, x1hi, x2lo, x2hi := selfLo, selfHi, stackLo, stackHi
		if x2lo < x1lo {
			x1lo, x1hi, x2lo, x2hi = x2lo, x2hi, x1lo, x1hi
		}
		cur := lo
		cur = rawDropUpTo(cur, hi, x1lo, x1hi)
		cur = rawDropUpTo(cur, hi, x2lo, x2hi)
		if cur < hi {
			syscall.RawSyscall6(syscall.SYS_MADVISE, cur, hi-cur, rawMadvDontneed, 0, 0, 0)
		}
	}
}

// rawMadvDontneed is MADV_DONTNEED.
const rawMadvDontneed = 4

// rawDropUpTo gives back [cur, min(xlo, hi)) and returns where the part
// after the kept range [xlo, xhi) begins.
//
//go:nosplit
//go:norace
func rawDropUpTo(cur, hi, xlo, xhi uintptr) uintptr {
	if xhi <= cur || xlo >= hi {
		return cur
	}
	if xlo > cur {
		syscall.RawSyscall6(syscall.SYS_MADVISE, cur, xlo-cur, rawMadvDontneed, 0, 0, 0)
	}
	return max(cur, xhi)
}

// rawHex reads a hexadecimal number at c.mapsBuf[i:n] and returns it and
// the index after it.
//
//go:nosplit
//go:norace
func rawHex(c *rawChild, i, n int) (uintptr, int) {
	var v uintptr
	for ; i < n; i++ {
		b := c.mapsBuf[i]
		switch {
		case b >= '0' && b <= '9':
			v = v<<4 | uintptr(b-'0')
		case b >= 'a' && b <= 'f':
			v = v<<4 | uintptr(b-'a'+10)
		default:
			return v, i
		}
	}
	return v, i
}

// rawDec reads a decimal number at c.mapsBuf[i:n] and returns it and the
// index after it.
//
//go:nosplit
//go:norace
func rawDec(c *rawChild, i, n int) (uintptr, int) {
	var v uintptr
	for ; i < n && c.mapsBuf[i] >= '0' && c.mapsBuf[i] <= '9'; i++ {
		v = v*10 + uintptr(c.mapsBuf[i]-'0')
	}
	return v, i
}

// rawSkipField returns the index of the next field after the one at i.
//
//go:nosplit
//go:norace
func rawSkipField(c *rawChild, i, n int) int {
	for i < n && c.mapsBuf[i] != ' ' && c.mapsBuf[i] != '\n' {
		i++
	}
	for i < n && c.mapsBuf[i] == ' ' {
		i++
	}
	return i
}

// rawRefuse tells the starter why the guard will not arm, and exits.
//
//go:nosplit
//go:norace
func rawRefuse(c *rawChild, code int) {
	n := rawfork.PutNum(c.msg[:], rawfork.PutStr(c.msg[:], 0, wire.Refused), uintptr(code), '\n')
	rawfork.Write(fdArmed, c.msg[:n])
	rawfork.Exit(exitRefused)
}

// rawFinished is finished (guard_unix.go) without a runtime: it reports
// true once a complete "finish PGID" line has come and the holders are
// then empty; false, and the guard ends the session, when the starter is
// gone (its pidfd readable, or the end of the pipe) or a line is not a
// valid finish. Every read is of what poll showed there.
//
//go:nosplit
//go:norace
func rawFinished(c *rawChild) bool {
	if _, _, e := syscall.RawSyscall6(syscall.SYS_FCNTL, fdFinish, syscall.F_SETFL, syscall.O_NONBLOCK, 0, 0, 0); e != 0 {
		return false
	}
	for {
		c.fds[0] = rawfork.PollFd{Fd: fdFinish, Events: rawfork.PollIn}
		c.fds[1] = rawfork.PollFd{Fd: fdStarter, Events: rawfork.PollIn}
		if rawfork.Poll(c.fds[:], -1) != 0 {
			return false
		}
		if c.fds[0].Revents != 0 {
			// Sound: c.msg outlives the call.
			n, _, e := syscall.RawSyscall6(syscall.SYS_READ, fdFinish, uintptr(unsafe.Pointer(&c.msg[0])), uintptr(len(c.msg)), 0, 0, 0)
			switch {
			case e == syscall.EAGAIN || e == syscall.EINTR:
				continue
			case e != 0 || n == 0:
				return false // the end of the pipe
			case c.np+int(n) > len(c.pending):
				return false // longer than any message of the starter's
			}
			for i := 0; i < int(n); i++ {
				c.pending[c.np] = c.msg[i]
				c.np++
			}
			for {
				nl := -1
				for i := 0; i < c.np; i++ {
					if c.pending[i] == '\n' {
						nl = i
						break
					}
				}
				if nl < 0 {
					break
				}
				if !rawIsFinish(c, nl+1) {
					return false
				}
				// Drop the line.
				k := 0
				for i := nl + 1; i < c.np; i++ {
					c.pending[k] = c.pending[i]
					k++
				}
				c.np = k
				if rawEmpty(c) {
					return true
				}
			}
			continue
		}
		if c.fds[1].Revents != 0 {
			return false // the starter is gone
		}
	}
}

// rawIsFinish reports whether the first n bytes pending are exactly
// "finish PGID\n".
//
//go:nosplit
//go:norace
func rawIsFinish(c *rawChild, n int) bool {
	if n != c.finishLen {
		return false
	}
	for i := 0; i < n; i++ {
		if c.pending[i] != c.finishMsg[i] {
			return false
		}
	}
	return true
}

// rawGroupSignal sends sig to group E through the gate's pidfd and
// returns the errno: ESRCH once E has no member, zombies included.
//
//go:nosplit
//go:norace
func rawGroupSignal(c *rawChild, sig syscall.Signal) syscall.Errno {
	_, _, e := syscall.RawSyscall6(rawfork.SysPidfdSendSignal, fdGate, uintptr(sig), 0, rawfork.PidfdSignalProcessGroup, 0, 0)
	return e
}

// rawEngineExited reports whether the Engine (the process of the gate's
// pidfd) has exited: its pidfd is readable.
//
//go:nosplit
//go:norace
func rawEngineExited(c *rawChild) bool {
	c.fds[0] = rawfork.PollFd{Fd: fdGate, Events: rawfork.PollIn}
	c.fds[1] = rawfork.PollFd{Fd: -1}
	return rawfork.Poll(c.fds[:], 0) == 0 && c.fds[0].Revents != 0
}

// rawCgroupEmpty reports whether the session cgroup has no process,
// below it included ("populated 0" in its cgroup.events), or is gone
// (removed: ENODEV). Reading it also re-arms its POLLPRI.
//
//go:nosplit
//go:norace
func rawCgroupEmpty(c *rawChild) bool {
	if c.cgEvents < 0 {
		return true
	}
	// Sound: c.events outlives the call.
	n, _, e := syscall.RawSyscall6(syscall.SYS_PREAD64, uintptr(c.cgEvents), uintptr(unsafe.Pointer(&c.evBuf[0])), uintptr(len(c.evBuf)), 0, 0, 0)
	if e == syscall.ENODEV {
		return true
	}
	if e != 0 {
		return false
	}
	const key = "populated "
	for i := 0; i+len(key) < int(n); i++ {
		if i > 0 && c.evBuf[i-1] != '\n' {
			continue
		}
		match := true
		for j := 0; j < len(key); j++ {
			if c.evBuf[i+j] != key[j] {
				match = false
				break
			}
		}
		if match {
			return c.evBuf[i+len(key)] == '0'
		}
	}
	return false
}

// rawEmpty reports whether every holder shows no live process: the Engine
// has exited, group E has no live member and the session cgroup is empty.
//
//go:nosplit
//go:norace
func rawEmpty(c *rawChild) bool {
	return rawEngineExited(c) && !rawGroupLive(c) && rawCgroupEmpty(c)
}

// rawGroupLive reports whether group E has a live member, as the end's
// group holder finds it: the group has a member (signal 0 through the
// gate's pidfd) before and after a scan of /proc that finds a live
// process (not a zombie) with E's group number. While E has a member its
// number cannot be handed out again, so every process the scan found
// with that number was in E. A scan that cannot read /proc counts as
// live (fail closed).
//
//go:nosplit
//go:norace
func rawGroupLive(c *rawChild) bool {
	if rawGroupSignal(c, 0) == syscall.ESRCH {
		return false
	}
	// Sound: c.proc is a NUL-terminated string built by the parent.
	proc, _, e := syscall.RawSyscall6(syscall.SYS_OPENAT, rawAtFDCWD, uintptr(unsafe.Pointer(&c.proc[0])), syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0, 0, 0)
	if e != 0 {
		return true
	}
	// One function for the whole scan: the nosplit chains below stay
	// short enough for builds that instrument every frame (go test -fuzz).
	live := false
	for done := false; !done && !live; {
		// Sound: c.dents outlives the call.
		n, _, e := syscall.RawSyscall6(syscall.SYS_GETDENTS64, proc, uintptr(unsafe.Pointer(&c.dents[0])), uintptr(len(c.dents)), 0, 0, 0)
		switch {
		case e == syscall.EINTR:
			continue
		case e != 0:
			live = true
		case n == 0:
			done = true
		}
		// struct linux_dirent64: ino (8 bytes), off (8), reclen (2),
		// type (1), then the NUL-terminated name.
		for off := 0; !live && !done && off+19 < int(n); {
			reclen := int(c.dents[off+16]) | int(c.dents[off+17])<<8
			if reclen == 0 {
				live = true
				break
			}
			live = rawLiveInGroup(c, proc, off+19)
			off += reclen
		}
	}
	syscall.RawSyscall6(syscall.SYS_CLOSE, proc, 0, 0, 0, 0, 0)
	return live && rawGroupSignal(c, 0) != syscall.ESRCH
}

// rawAtFDCWD is AT_FDCWD: a path relative to the working directory ("/").
const rawAtFDCWD = ^uintptr(99) // -100

// rawLiveInGroup reports whether the process whose /proc entry's name
// starts at c.dents[name] is a live member of group E; false for an entry
// that is not a process, or a process that is gone.
//
//go:nosplit
//go:norace
func rawLiveInGroup(c *rawChild, proc uintptr, name int) bool {
	i := 0
	for ; name+i < len(c.dents) && c.dents[name+i] != 0; i++ {
		if b := c.dents[name+i]; b < '0' || b > '9' || i >= 20 {
			return false
		}
		c.path[i] = c.dents[name+i]
	}
	if i == 0 {
		return false
	}
	i = rawfork.PutStr(c.path[:], i, "/stat")
	c.path[i] = 0
	// Sound: c.path is NUL-terminated and outlives the call.
	fd, _, e := syscall.RawSyscall6(syscall.SYS_OPENAT, proc, uintptr(unsafe.Pointer(&c.path[0])), syscall.O_RDONLY|syscall.O_CLOEXEC, 0, 0, 0)
	if e != 0 {
		return false
	}
	n, _, e := syscall.RawSyscall6(syscall.SYS_READ, fd, uintptr(unsafe.Pointer(&c.stat[0])), uintptr(len(c.stat)), 0, 0, 0)
	syscall.RawSyscall6(syscall.SYS_CLOSE, fd, 0, 0, 0, 0, 0)
	if e != 0 {
		return false
	}
	// "PID (COMM) STATE PPID PGRP ...": COMM may hold anything, so the
	// fields start after the last ')'.
	p := -1
	for j := int(n) - 1; j >= 0; j-- {
		if c.stat[j] == ')' {
			p = j
			break
		}
	}
	if p < 0 || p+3 >= int(n) {
		return false
	}
	state := c.stat[p+2]
	// Fields 3 (state) .. 20 (num_threads), counted from p+2.
	pgrp, ok := rawField(c, p+2, int(n), 2)
	if !ok || pgrp != c.pgid {
		return false
	}
	switch state {
	case 'X', 'x':
		return false
	case 'Z':
		// A zombie leader whose other threads still run is live.
		threads, ok := rawField(c, p+2, int(n), 17)
		return !ok || threads > 1
	}
	return true
}

// rawField returns the decimal number of the field k places after the
// one that starts at c.stat[from] (fields separated by one space).
//
//go:nosplit
//go:norace
func rawField(c *rawChild, from, n, k int) (uintptr, bool) {
	// Indexes masked to the buffer's size (a power of two): no bounds
	// check, and so no call that the nosplit chains would have to make
	// room for. i < n <= len(c.stat) keeps them in range anyway.
	const mask = len(rawChild{}.stat) - 1
	n = min(n, len(c.stat))
	i := max(from, 0)
	for ; k > 0 && i < n; i++ {
		if c.stat[i&mask] == ' ' {
			k--
		}
	}
	if k > 0 || i >= n {
		return 0, false
	}
	var v uintptr
	digits := 0
	for ; i < n && c.stat[i&mask] >= '0' && c.stat[i&mask] <= '9'; i++ {
		v = v*10 + uintptr(c.stat[i&mask]-'0')
		digits++
	}
	return v, digits > 0
}

// The rounds of the raw guard's end, as the end routine's: SIGKILL to
// every holder still live at once, again after 50 ms doubling to 500 ms;
// group E, whose last exit nothing announces, is looked at again after
// 250 µs doubling to 20 ms.
const (
	rawFirstRound = int64(50e6)
	rawLastRound  = int64(500e6)
	rawFirstLook  = int64(250e3)
	rawLastLook   = int64(20e6)
)

// rawEnd ends every holder of the session with SIGKILL in rounds until
// all are empty or the budget has passed, then removes the session cgroup,
// gives the terminal back and exits.
//
//go:nosplit
//go:norace
func rawEnd(c *rawChild) {
	start := rawfork.Now()
	deadline := start + c.budget
	next, round, look := start, rawFirstRound, rawFirstLook
	for {
		engine := !rawEngineExited(c)
		group := rawGroupLive(c)
		cg := !rawCgroupEmpty(c)
		if !engine && !group && !cg {
			break
		}
		now := rawfork.Now()
		if now >= deadline {
			break
		}
		if now >= next {
			// Broadest first: the cgroup, then the group, then the Engine
			// (which may have left the group).
			if cg {
				rawfork.Write(c.cgKill, c.one[:])
			}
			if group {
				rawGroupSignal(c, syscall.SIGKILL)
			}
			if engine {
				syscall.RawSyscall6(rawfork.SysPidfdSendSignal, fdGate, uintptr(syscall.SIGKILL), 0, 0, 0, 0)
			}
			next, round = now+round, min(2*round, rawLastRound)
		}
		wait := min(next, deadline) - now
		if group {
			wait, look = min(wait, look), min(2*look, rawLastLook)
		}
		c.fds[0] = rawfork.PollFd{Fd: -1}
		c.fds[1] = rawfork.PollFd{Fd: -1}
		if engine {
			c.fds[0] = rawfork.PollFd{Fd: fdGate, Events: rawfork.PollIn}
		}
		if cg {
			c.fds[1] = rawfork.PollFd{Fd: c.cgEvents, Events: rawfork.PollPri}
		}
		rawfork.Poll(c.fds[:], wait)
	}
	if c.cgroup {
		// Sound: c.cgName is a NUL-terminated string built by the parent.
		syscall.RawSyscall6(syscall.SYS_UNLINKAT, fdCgroupP, uintptr(unsafe.Pointer(&c.cgName[0])), rawfork.AtRemoveDir, 0, 0, 0)
	}
	if c.tty {
		// Give the terminal back to the starter's group if E still has it
		// (the guard ignores SIGTTOU).
		var fg int32
		// Sound: fg and c.ttyGroup outlive the calls.
		_, _, e := syscall.RawSyscall6(syscall.SYS_IOCTL, fdTTY, syscall.TIOCGPGRP, uintptr(unsafe.Pointer(&fg)), 0, 0, 0)
		if e == 0 && uintptr(fg) == c.pgid {
			syscall.RawSyscall6(syscall.SYS_IOCTL, fdTTY, syscall.TIOCSPGRP, uintptr(unsafe.Pointer(&c.ttyGroup)), 0, 0, 0)
		}
	}
	rawfork.Exit(exitDone)
}
