package guard

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/session-starter/session-starter/internal/cgroup"
	"github.com/session-starter/session-starter/internal/groupend"
	"github.com/session-starter/session-starter/internal/sys"
	"github.com/session-starter/session-starter/internal/wire"
)

// Spec says what the guard watches.
type Spec struct {
	// Exe is the binary that implements the hidden mode.
	Exe string
	// GatePidfd is a pidfd of the gate, the leader of group PGID.
	GatePidfd int
	PGID      int
	// Budget bounds how long the guard keeps ending the group.
	Budget time.Duration
	// TTY, when > 0, is the terminal the Engine's group was given; after
	// ending the group the guard gives it back to TTYGroup (the
	// starter's own group) if E still has it.
	TTY      int
	TTYGroup int
	// Cgroup, when > 2, is a directory descriptor of the session cgroup
	// (cgroup mode): the guard ends the session with its cgroup.kill and
	// waits for "populated 0" before ending group E, then removes it
	// through CgroupParent (a directory descriptor of its parent) and
	// CgroupName, never through a path.
	Cgroup       int
	CgroupParent int
	CgroupName   string
}

// Guard is an armed guard process.
type Guard struct {
	PID   int
	Pidfd int
	pgid  int
	finW  int
	armR  int // read end of the armed pipe until AwaitArmed
}

// armTimeout bounds the wait for the guard's armed message; a guard that
// has not answered by then is stuck, and the session is refused.
const armTimeout = 30 * time.Second

// Descriptor numbers in the guard process.
const (
	fdGate    = 3 // pidfd of the gate
	fdFinish  = 4 // read end of the finish pipe
	fdStarter = 5 // pidfd of the starter
	fdArmed   = 6 // write end of the armed pipe
	fdTTY     = 7 // the terminal, in terminal mode only
	fdCgroup  = 8 // the session cgroup's directory, in cgroup mode only
	fdCgroupP = 9 // its parent's directory, in cgroup mode only
)

// Arm starts the guard on the group spec.PGID and waits until it watches.
func Arm(spec Spec) (*Guard, error) {
	g, err := Spawn(spec)
	if err != nil {
		return nil, err
	}
	if err := g.AwaitArmed(); err != nil {
		return nil, err
	}
	return g, nil
}

// Spawn starts the guard without waiting for it; [Guard.AwaitArmed] then
// waits. The guard is not watching until AwaitArmed returns nil.
func Spawn(spec Spec) (*Guard, error) {
	self, err := sys.PidfdOpen(os.Getpid())
	if err != nil {
		return nil, fmt.Errorf("guard: %w", err)
	}
	defer sys.Close(self)
	null, err := unix.Open("/dev/null", unix.O_RDWR|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("guard: open /dev/null: %w", err)
	}
	defer sys.Close(null)
	finR, finW, err := sys.Pipe()
	if err != nil {
		return nil, fmt.Errorf("guard: %w", err)
	}
	armR, armW, err := sys.Pipe()
	if err != nil {
		sys.Close(finR)
		sys.Close(finW)
		return nil, fmt.Errorf("guard: %w", err)
	}
	// The guard's environment carries nothing of the Engine's but a race
	// detector setting, so that a race-built test binary playing the guard
	// exits at once. containermaxprocs=0 keeps the Go runtime from holding
	// the cgroup v1 cpu files open for its whole life (Go 1.25+), which
	// would pin that mount (invariant 9); the guard sets GOMAXPROCS itself.
	env := []string{"GODEBUG=containermaxprocs=0"}
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "GORACE=") {
			env = append(env, kv)
		}
	}
	pidfd := -1
	argv := []string{"session-starter", Arg, strconv.Itoa(spec.PGID), strconv.FormatInt(int64(spec.Budget), 10)}
	files := []uintptr{uintptr(null), uintptr(null), uintptr(null), uintptr(spec.GatePidfd), uintptr(finR), uintptr(self), uintptr(armW)}
	if spec.TTY > 0 {
		// In terminal mode only: the one descriptor of the launcher's the
		// guard holds, to give the terminal back after ending E.
		argv = append(argv, strconv.Itoa(spec.TTYGroup))
		files = append(files, uintptr(spec.TTY))
	}
	if spec.Cgroup > 2 {
		if spec.TTY <= 0 {
			argv = append(argv, "-")
			files = append(files, ^uintptr(0)) // slot 7 closed
		}
		argv = append(argv, spec.CgroupName)
		files = append(files, uintptr(spec.Cgroup), uintptr(spec.CgroupParent))
	}
	pid, err := syscall.ForkExec(spec.Exe, argv, &syscall.ProcAttr{
		Dir:   "/",
		Env:   env,
		Files: files,
		Sys:   &syscall.SysProcAttr{Setpgid: true, PidFD: &pidfd},
	})
	sys.Close(finR)
	sys.Close(armW)
	if err != nil {
		sys.Close(finW)
		sys.Close(armR)
		return nil, fmt.Errorf("guard: start %s: %w", spec.Exe, err)
	}
	return &Guard{PID: pid, Pidfd: pidfd, pgid: spec.PGID, finW: finW, armR: armR}, nil
}

// AwaitArmed waits until the guard watches the group. On an error the
// guard has been killed and reaped.
func (g *Guard) AwaitArmed() error {
	err := awaitArmed(g.armR, g.pgid)
	sys.Close(g.armR)
	g.armR = -1
	if err != nil {
		g.kill()
	}
	return err
}

// Abandon kills and reaps a guard whose AwaitArmed was never called.
func (g *Guard) Abandon() {
	if g.armR >= 0 {
		sys.Close(g.armR)
		g.armR = -1
	}
	g.kill()
}

func awaitArmed(armR, pgid int) error {
	n, err := sys.Poll([]unix.PollFd{{Fd: int32(armR), Events: unix.POLLIN}}, armTimeout)
	if err != nil {
		return fmt.Errorf("guard: %w", err)
	}
	if n == 0 {
		return fmt.Errorf("guard: not armed within %v", armTimeout)
	}
	line, err := wire.ReadLine(sys.FD(armR))
	if err != nil {
		return fmt.Errorf("guard: ended before it was armed: %w", err)
	}
	if code, err := wire.Decode(line, wire.Refused, 1); err == nil {
		return fmt.Errorf("guard: %w", refusal(code[0]))
	}
	if err := wire.Expect(line, wire.Armed, pgid); err != nil {
		return fmt.Errorf("guard: %w", err)
	}
	return nil
}

// kill ends a guard that is not armed (it leads its own group and watches
// nothing) and reaps it.
func (g *Guard) kill() {
	_ = sys.PidfdSignal(g.Pidfd, syscall.SIGKILL)
	_, _ = sys.Reap(g.Pidfd)
	g.close()
}

func (g *Guard) close() {
	if g.finW >= 0 {
		sys.Close(g.finW)
		g.finW = -1
	}
	if g.Pidfd >= 0 {
		sys.Close(g.Pidfd)
		g.Pidfd = -1
	}
}

// Lost reaps a guard that has exited on its own (its pidfd is readable)
// and releases the starter's descriptors of it.
func (g *Guard) Lost() {
	_, _ = sys.Reap(g.Pidfd)
	g.close()
}

// Finish tells the guard that the session ended: it exits without
// signalling anything. Finish waits up to wait for that exit and reaps the
// guard; a guard still running then is left to exit on its own.
func (g *Guard) Finish(wait time.Duration) error {
	err := sys.WriteAll(g.finW, wire.Encode(wire.Finish, g.pgid))
	sys.Close(g.finW)
	g.finW = -1
	defer g.close()
	if err != nil {
		return fmt.Errorf("guard: finish: %w", err)
	}
	n, err := sys.Poll([]unix.PollFd{{Fd: int32(g.Pidfd), Events: unix.POLLIN}}, wait)
	if err != nil {
		return fmt.Errorf("guard: %w", err)
	}
	if n == 0 {
		return fmt.Errorf("guard: pid %d still running %v after finish", g.PID, wait)
	}
	st, err := sys.Reap(g.Pidfd)
	if err != nil {
		return fmt.Errorf("guard: %w", err)
	}
	if !st.Exited || st.Code != 0 {
		return fmt.Errorf("guard: pid %d ended with %v", g.PID, st)
	}
	return nil
}

// Main is the guard side. It never returns.
func Main(args []string) {
	runtime.LockOSThread() // the name below belongs to this, the main, thread
	if len(args) > 1 && args[1] == PinArg {
		pinMain()
	}
	_ = sys.SetName("session-guard")
	runtime.GOMAXPROCS(1)
	debug.SetGCPercent(400) // a few small allocations; fewer wake-ups for GC.
	// Keep guarding through terminal and hang-up signals; only SIGKILL
	// ends the guard. The guard executes nothing, so ignoring them here
	// reaches no Engine.
	signal.Ignore(syscall.SIGHUP, syscall.SIGINT, syscall.SIGTERM, syscall.SIGQUIT, syscall.SIGTSTP, syscall.SIGTTIN, syscall.SIGTTOU, syscall.SIGPIPE)
	pgid, budget, ttyGroup, cgName, ok := parseArgs(args)
	fds := []int{fdGate, fdFinish, fdStarter, fdArmed}
	if ttyGroup > 0 {
		fds = append(fds, fdTTY)
	}
	if cgName != "" {
		fds = append(fds, fdCgroup, fdCgroupP)
	}
	for _, fd := range fds {
		if sys.SetCloseOnExec(fd) != nil {
			ok = false
		}
	}
	if !ok {
		_ = sys.WriteAll(fdArmed, wire.Encode(wire.Refused, refusedSetup))
		os.Exit(2)
	}
	var group groupend.Group = groupend.PidfdGroup{Pidfd: fdGate, PGID: pgid}
	code := check(groupend.PidfdGroup{Pidfd: fdGate, PGID: pgid})
	var p *pin
	if code == refusedNoGroupSignal {
		// Before Linux 6.9: hold the number with a pin, signal -E.
		if p, code = pinGroup(pgid); code == 0 {
			group = pinnedGroup{pgid: pgid}
		}
	}
	if code == 0 && cgName != "" {
		code = checkCgroup(cgName)
	}
	if code != 0 {
		p.end()
		_ = sys.WriteAll(fdArmed, wire.Encode(wire.Refused, code))
		os.Exit(2)
	}
	if sys.WriteAll(fdArmed, wire.Encode(wire.Armed, pgid)) != nil {
		// The starter is gone already: that is what we guard against.
		endGroup(group, budget, ttyGroup, cgName, p)
	}
	sys.Close(fdArmed)
	if finished(pgid) {
		p.end()
		os.Exit(0)
	}
	endGroup(group, budget, ttyGroup, cgName, p)
}

// checkCgroup checks the cgroup descriptors: two directories of a cgroup2
// file system, the first named name in the second, with a cgroup.kill.
func checkCgroup(name string) int {
	if _, _, _, ok := cgroup.ParseName(name); !ok {
		return refusedSetup
	}
	var in, named unix.Stat_t
	for _, fd := range []int{fdCgroup, fdCgroupP} {
		var fs unix.Statfs_t
		if unix.Fstatfs(fd, &fs) != nil || fs.Type != unix.CGROUP2_SUPER_MAGIC {
			return refusedNoCgroup
		}
	}
	if unix.Fstat(fdCgroup, &in) != nil || unix.Fstatat(fdCgroupP, name, &named, unix.AT_SYMLINK_NOFOLLOW) != nil ||
		in.Ino != named.Ino || in.Dev != named.Dev {
		return refusedNoCgroup
	}
	if unix.Faccessat(fdCgroup, "cgroup.kill", unix.W_OK, 0) != nil {
		return refusedNoCgroup
	}
	return 0
}

func check(group groupend.PidfdGroup) int {
	if own, err := sys.Getpgid(0); err != nil || own == group.PGID {
		return refusedInGroup
	}
	switch err := group.Signal(0); {
	case errors.Is(err, sys.ErrNoGroupSignal):
		return refusedNoGroupSignal
	case errors.Is(err, sys.ErrGone):
		return refusedGroupGone
	case err != nil:
		return refusedSetup
	}
	return 0
}

// finished waits for the starter's word. It reports true only for a
// complete "finish PGID" line followed by the end of the pipe.
func finished(pgid int) bool {
	fds := []unix.PollFd{{Fd: fdFinish, Events: unix.POLLIN}, {Fd: fdStarter, Events: unix.POLLIN}}
	if _, err := sys.Poll(fds, -1); err != nil {
		return false
	}
	if fds[0].Revents == 0 {
		// The starter ended while its pipe shows nothing: someone else
		// holds the write end. The starter is gone all the same.
		return false
	}
	line, err := wire.ReadLine(sys.FD(fdFinish))
	if err != nil || wire.Expect(line, wire.Finish, pgid) != nil {
		return false
	}
	_, err = wire.ReadLine(sys.FD(fdFinish))
	return errors.Is(err, io.EOF)
}

func endGroup(group groupend.Group, budget time.Duration, ttyGroup int, cgName string, p *pin) {
	own, _ := sys.Getpgid(0)
	if cgName != "" {
		// Everything in the session cgroup first, escapees included; the
		// group end then finds nothing live (but a member that left the
		// cgroup, which only a privileged Engine can do).
		_, _ = cgroup.KillUntilEmpty(fdCgroup, budget, func() { _ = group.Signal(syscall.SIGKILL) })
	}
	groupend.End(group, budget, own)
	p.end() // after the last group signal
	if cgName != "" {
		_ = cgroup.Remove(fdCgroupP, cgName)
	}
	// In terminal mode, give the terminal back to the starter's group if
	// the Engine's group still has it (the guard ignores SIGTTOU).
	if ttyGroup > 0 {
		if fg, err := unix.IoctlGetInt(fdTTY, unix.TIOCGPGRP); err == nil && fg == group.Pgid() {
			_ = unix.IoctlSetPointerInt(fdTTY, unix.TIOCSPGRP, ttyGroup)
		}
	}
	os.Exit(0)
}

// parseArgs reads the guard's command line: Arg, PGID, the budget in
// nanoseconds, then optionally the terminal's group ("-" for none) and
// the session cgroup's name.
func parseArgs(args []string) (pgid int, budget time.Duration, ttyGroup int, cgName string, ok bool) {
	if len(args) < 4 || len(args) > 6 || args[1] != Arg {
		return 0, 0, 0, "", false
	}
	pgid, err1 := strconv.Atoi(args[2])
	ns, err2 := strconv.ParseInt(args[3], 10, 64)
	if err1 != nil || err2 != nil || pgid <= 1 || ns <= 0 {
		return 0, 0, 0, "", false
	}
	if len(args) >= 5 && !(len(args) == 6 && args[4] == "-") {
		var err error
		if ttyGroup, err = strconv.Atoi(args[4]); err != nil || ttyGroup <= 1 {
			return 0, 0, 0, "", false
		}
	}
	if len(args) == 6 {
		if _, _, _, ok := cgroup.ParseName(args[5]); !ok {
			return 0, 0, 0, "", false
		}
		cgName = args[5]
	}
	return pgid, time.Duration(ns), ttyGroup, cgName, true
}
