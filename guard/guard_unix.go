//go:build darwin || freebsd || linux

package guard

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/session-starter/session-starter/internal/cgroup"
	"github.com/session-starter/session-starter/internal/end"
	"github.com/session-starter/session-starter/internal/ledger"
	"github.com/session-starter/session-starter/internal/mark"
	"github.com/session-starter/session-starter/internal/proc"
	"github.com/session-starter/session-starter/internal/sys"
	"github.com/session-starter/session-starter/internal/wire"
	"github.com/session-starter/session-starter/starter/launch"
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
	// Mark, when set, is the session's id in the session mark, and
	// MarkSince the session's start as the platform orders processes:
	// once the starter is gone, the guard also ends the processes that
	// left group E, this user's alone. On Linux (native build) MarkSince
	// is the gate's start in clock ticks since boot, and the guard ends
	// every live process that carries the mark and started since, found
	// and verified as package internal/mark says. On macOS and FreeBSD
	// it is the token that, with PGID, names the Engine (lineage.Token:
	// its unique id, its ki_start), and the guard ends the Engine's
	// descendants found by lineage, with the mark as a second source
	// (package internal/lineage). The guard and its pin are never among
	// them.
	Mark      string
	MarkSince uint64
	// Ledger, when > 2 and with Mark set, is a descriptor of the ledger's
	// directory (package internal/ledger), opened at arming: once the
	// guard has ended the session after the starter was gone, and only
	// when that end reached Empty, it removes the session's record (named
	// by Mark) relative to this descriptor, never through a path. An end
	// that left something keeps the record, for a reclaim to try again.
	Ledger int
	// ReExec asks for the guard as Exe started again in the hidden mode
	// where a raw child of this process would be used (Linux).
	ReExec bool
	// Release says the starter may release the session when the Engine
	// exits on its own (--release-on-exit): a finish is then obeyed once
	// the Engine has exited, whatever group E and the session cgroup
	// still hold — what the Engine left is the enclosing session's to
	// end. A finish before the Engine's exit is not obeyed, as always.
	Release bool
}

// The hand-off is the Spec on the guard's command line, in each of the
// guard's forms: args writes it, parseHandoff reads it back. The guard
// reads it as a Spec of its own, whose descriptors are at their slots.

// record is the session's ledger record's name, "" for none: a record
// is named only with a ledger descriptor and a mark.
func (spec Spec) record() string {
	if spec.Mark == "" || spec.Ledger <= 2 {
		return ""
	}
	return ledger.FileName(spec.Mark)
}

// numAt is the place of the number in [Spec.args].
const numAt = 1

// args is spec as arguments: PGID, the budget, the terminal's group,
// the session cgroup's name, the mark ("ID@SINCE"), the release and the
// ledger record, each "-" for none.
func (spec Spec) args() []string {
	word := func(set bool, s string) string {
		if !set {
			return "-"
		}
		return s
	}
	return []string{strconv.Itoa(spec.PGID), strconv.FormatInt(int64(spec.Budget), 10), word(spec.TTY > 0, strconv.Itoa(spec.TTYGroup)),
		word(spec.Cgroup > 2, spec.CgroupName), word(spec.Mark != "", spec.Mark+"@"+strconv.FormatUint(spec.MarkSince, 10)),
		word(spec.Release, releaseWord), word(spec.record() != "", spec.record())}
}

// releaseWord is the release's "yes" in [Spec.args].
const releaseWord = "release"

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

// Spawn starts the guard without waiting for it; [Guard.AwaitArmed] then
// waits. The guard is not watching until AwaitArmed returns nil.
//
// On Linux 6.9 and later (a group is signalled through a pidfd, and
// close_range exists) the guard is a raw child of this process, unless
// [Spec.ReExec] asks otherwise; else, and on every other platform, it is
// [Spec.Exe] started again in the hidden guard mode. Both keep the same
// rules and speak the same messages.
func Spawn(spec Spec) (*Guard, error) {
	if !spec.ReExec && rawSupported() {
		return spawnRaw(spec)
	}
	return start(spec, func(from [wire.Slots]int) (int, int, error) {
		files := make([]uintptr, wire.SlotExe)
		for slot := range files {
			files[slot] = uintptr(from[slot]) // -1: closed in the guard
		}
		argv := append([]string{"session-starter", arg}, spec.args()...)
		pid, pidfd, err := sys.SpawnGroup(spec.Exe, argv, guardEnv(), "/", files, 0)
		if err != nil {
			return 0, -1, fmt.Errorf("start %s: %w", spec.Exe, err)
		}
		return pid, pidfd, nil
	})
}

// start opens what each form of the guard is given — /dev/null on 0-2,
// the finish and armed pipes, a handle of this process — and
// calls run with its slot table: for each of the guard's descriptor
// slots, the descriptor of this process that goes there, or -1. Of the
// terminal, the session cgroup and the ledger it holds what spec names
// ([Spec.slots]). run returns the guard's PID and a handle of it.
func start(spec Spec, run func(from [wire.Slots]int) (pid, pidfd int, err error)) (*Guard, error) {
	// A pidfd of this process, the starter: a second channel besides the
	// finish pipe. Without pidfds (sys.Pidless) both handle slots stay
	// closed: the guard watches the starter by the pipe alone, and the
	// Engine by a watch it opens once its pin holds group E.
	self := -1
	if !sys.Pidless {
		var err error
		if self, err = sys.WatchExit(os.Getpid()); err != nil {
			return nil, fmt.Errorf("guard: %w", err)
		}
		defer sys.Close(self)
	}
	null, err := sys.Open("/dev/null", sys.O_RDWR)
	if err != nil {
		return nil, fmt.Errorf("guard: %w", err)
	}
	defer sys.Close(null)
	finR, finW, armR, armW, err := sys.Pipes()
	if err != nil {
		return nil, fmt.Errorf("guard: %w", err)
	}
	from := [wire.Slots]int{null, null, null, wire.SlotGate: spec.GatePidfd, wire.SlotFinish: finR, wire.SlotStarter: self, wire.SlotArmed: armW,
		wire.SlotTTY: spec.TTY, wire.SlotCgroup: spec.Cgroup, wire.SlotCgroupP: spec.CgroupParent, wire.SlotLedger: spec.Ledger}
	for slot := 3; slot < wire.Slots; slot++ {
		if !slices.Contains(spec.slots(), slot) {
			from[slot] = -1
		}
	}
	pid, pidfd, err := run(from)
	sys.Close(finR)
	sys.Close(armW)
	if err != nil {
		sys.Close(finW)
		sys.Close(armR)
		return nil, fmt.Errorf("guard: %w", err)
	}
	return &Guard{PID: pid, Pidfd: pidfd, pgid: spec.PGID, finW: finW, armR: armR}, nil
}

// slots lists the descriptor slots above 2 that a guard of spec is given:
// the gate's and the starter's handles (none where sys.Pidless), the two
// pipes, and the terminal, the session cgroup and its parent, and the
// ledger, each where spec names it.
func (spec Spec) slots() []int {
	slots := []int{wire.SlotGate, wire.SlotFinish, wire.SlotStarter, wire.SlotArmed}
	if sys.Pidless {
		slots = []int{wire.SlotFinish, wire.SlotArmed}
	}
	if spec.TTY > 0 {
		// In terminal mode only: the one descriptor of the launcher's the
		// guard holds, to give the terminal back after ending E.
		slots = append(slots, wire.SlotTTY)
	}
	if spec.Cgroup > 2 {
		slots = append(slots, wire.SlotCgroup, wire.SlotCgroupP)
	}
	if spec.record() != "" {
		slots = append(slots, wire.SlotLedger)
	}
	return slots
}

// AwaitArmed waits until the guard watches the group. On an error the
// guard has been killed and reaped.
func (g *Guard) AwaitArmed() error {
	if err := awaitArmed(g.armR, g.pgid); err != nil {
		g.Abandon()
		return err
	}
	sys.Close(g.armR)
	g.armR = -1
	return nil
}

// Abandon kills and reaps a guard that is not armed (it leads its own
// group and watches nothing): one whose AwaitArmed was never called, or
// failed.
func (g *Guard) Abandon() {
	_ = sys.SignalChild(g.PID, g.Pidfd, syscall.SIGKILL)
	g.Lost()
}

func awaitArmed(armR, pgid int) error {
	n, err := sys.Poll([]sys.PollFd{{Fd: int32(armR), Events: sys.POLLIN}}, armTimeout)
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

// reapWait bounds the wait for a guard that was SIGKILLed, or that exited
// on its own, to be reapable: it exits at once unless it is frozen, and
// is then left to init.
const reapWait = time.Second

// close releases the starter's descriptors of the guard.
func (g *Guard) close() {
	sys.CloseFDs(&g.finW, &g.armR, &g.Pidfd)
}

// Lost reaps a guard that has exited on its own (its pidfd is readable)
// and releases the starter's descriptors of it.
func (g *Guard) Lost() {
	_, _ = sys.ReapChildWithin(g.PID, g.Pidfd, reapWait)
	g.close()
}

// ContinueIfStopped continues the guard if it is stopped (SIGSTOP, a
// terminal's stop signals) and reports whether it was: a stopped guard
// would end nothing if the starter were killed. The starter calls it
// when a child of its stops or exits (SIGCHLD); Finish continues a guard
// still stopped at the end. A tracer's stop ('t', under strace or a
// debugger) is left to the tracer here.
func (g *Guard) ContinueIfStopped() bool { return g.continueIfStopped("T") != 0 }

// continueIfStopped sends SIGCONT to the guard if its state is one of
// states ('T' stopped, 't' stopped by a tracer) and returns that state,
// or 0. The guard is our unreaped child: its PID names it.
func (g *Guard) continueIfStopped(states string) byte {
	st, err := proc.ReadStat(g.PID)
	if err != nil || strings.IndexByte(states, st.State) < 0 {
		return 0
	}
	_ = sys.SignalChild(g.PID, g.Pidfd, syscall.SIGCONT)
	return st.State
}

// ErrNotFinished is wrapped by Finish's error when the guard has not
// exited in time: it is stopped, or it found the session not ended and
// keeps guarding.
var ErrNotFinished = errors.New("guard: not finished")

// Finish tells the guard that the session ended and waits up to within
// for it to exit, then reaps it. The guard exits only once it has seen
// every holder of the session empty; otherwise it keeps guarding, and
// ends the holders itself once the starter is gone. A guard that was
// stopped (SIGSTOP, or a terminal's stop signals) is continued first, and
// that is reported with the outcome. Finish never waits longer than
// within.
func (g *Guard) Finish(within time.Duration) error {
	var was error
	if state := g.continueIfStopped("Tt"); state != 0 {
		was = fmt.Errorf("guard: pid %d was stopped (state %c) at the end of the session; continued", g.PID, state)
	}
	err := sys.WriteAll(g.finW, wire.Encode(wire.Finish, g.pgid))
	sys.Close(g.finW)
	g.finW = -1
	defer g.close()
	if err != nil {
		return errors.Join(was, fmt.Errorf("guard: finish: %w", err))
	}
	st, err := sys.ReapChildWithin(g.PID, g.Pidfd, within)
	switch {
	case errors.Is(err, sys.ErrRunning):
		err = fmt.Errorf("%w: pid %d still running %v after finish", ErrNotFinished, g.PID, within)
	case err != nil:
		err = fmt.Errorf("guard: %w", err)
	case !st.Exited || st.Code != 0:
		err = fmt.Errorf("guard: pid %d ended with %v", g.PID, st)
	}
	return errors.Join(was, err)
}

// guardMain is the guard side. It never returns.
func guardMain(args []string) {
	if wire.CheckProtocol(args) != nil {
		// Of another version than the starter: it sees this guard end
		// before it was armed, and runs nothing.
		os.Exit(wire.ExitProtocol)
	}
	runtime.LockOSThread() // the name below belongs to this, the main, thread
	if len(args) > 1 && args[1] == pinArg {
		pinMain()
	}
	if len(args) > 1 && args[1] == verifyArg {
		verifyMain(args)
	}
	settle()
	_, c, ok := parseArgs(args)
	for _, fd := range c.slots() {
		if sys.SetCloseOnExec(fd) != nil {
			ok = false
		}
	}
	code := refusedSetup
	if ok {
		code = check(c.PGID)
	}
	var p *pin
	if code == refusedNoGroupSignal {
		// Before Linux 6.9: hold the number with a pin, signal -E.
		p, code = pinGroup(c.PGID)
	}
	var g guarded
	if code == 0 {
		g, code = guard(c, p)
	}
	if code != 0 {
		p.end()
		_ = sys.WriteAll(wire.SlotArmed, wire.Encode(wire.Refused, code))
		os.Exit(exitRefused)
	}
	if sys.WriteAll(wire.SlotArmed, wire.Encode(wire.Armed, c.PGID)) != nil {
		// The starter is gone already: that is what we guard against.
		endSession(g, c.Budget)
	}
	sys.Close(wire.SlotArmed)
	if finished(c.PGID, g.obeyed) {
		p.end()
		os.Exit(exitDone)
	}
	endSession(g, c.Budget)
}

// settle makes this process the guard: its name, one thread of Go code,
// few collections, and the terminal and hang-up signals ignored. Only
// SIGKILL ends the guard; it executes nothing, so ignoring them here
// reaches no Engine.
func settle() {
	_ = sys.SetName(wire.GuardComm)
	runtime.GOMAXPROCS(1)
	debug.SetGCPercent(400) // a few small allocations; fewer wake-ups for GC.
	signal.Ignore(syscall.SIGHUP, syscall.SIGINT, syscall.SIGTERM, syscall.SIGQUIT, syscall.SIGTSTP, syscall.SIGTTIN, syscall.SIGTTOU, syscall.SIGPIPE)
}

// guarded is the session a guard guards: what the hand-off named, and the
// holders it names.
type guarded struct {
	Spec
	holders []end.Holder
	pin     *pin
}

// guard is the session h names: the Engine's own process first (it may
// have left group E), then group E (signalled by number through the pin
// p, where there is one), then the session cgroup. code is a refusal when
// the cgroup's descriptors fail their checks; the holders then hold the
// rest.
func guard(h Spec, p *pin) (g guarded, code int) {
	own, _ := sys.Getpgid(0)
	g = guarded{Spec: h, pin: p}
	group := end.Group{PGID: h.PGID, Send: end.PidfdGroupSend(wire.SlotGate), Forbidden: []int{own}}
	if p != nil {
		// Before Linux 6.9, which cannot signal a group through a pidfd,
		// by number. That is safe for one reason: the pin — a child of
		// the guard that joined E while the gate, its leader, was alive —
		// stays a member of E until the guard reaps it, running or as a
		// zombie, and a group number cannot be handed out again while it
		// has a member. So -E names this group and no other until the
		// guard reaps the pin, which it does only after its last group
		// signal.
		group.Send = func(sig syscall.Signal) error { return sys.KillGroup(h.PGID, sig) }
		group.Exclude = []int{p.pid}
	}
	g.holders = []end.Holder{&end.Process{PID: h.PGID, Pidfd: wire.SlotGate, Pinned: p != nil}, group}
	if h.Cgroup > 2 {
		var cg end.Holder
		if cg, code = cgroupHolder(h.CgroupName); code == 0 {
			g.holders = append(g.holders, cg)
		}
	}
	return g, code
}

// endHolders is the guard's holders for its end: the session's own, and
// the processes that carry its mark unless the session cgroup holds it
// (a third holder, after the Engine and group E). The cgroup is the stronger evidence: everything the Engine
// started is in it, while a copy of the mark's value can reach a stranger
// (an environment importer: `systemctl --user import-environment`, tmux's
// update-environment), which the mark alone would take for the session's.
// The mark holder leaves out the pin, an unreaped child, whose number is
// its own until the guard reaps it.
func (g guarded) endHolders() []end.Holder {
	if len(g.holders) > 2 || g.Mark == "" {
		return g.holders
	}
	id, err := mark.Parse(g.Mark)
	if err != nil {
		return g.holders // not reached: the command line was checked
	}
	var skip []int
	if g.pin != nil {
		skip = []int{g.pin.pid}
	}
	return append(slices.Clone(g.holders), markHolders(id, g.MarkSince, g.PGID, skip)...)
}

// guardEnv is the environment of a guard of this binary, and of its pin:
// nothing of the Engine's but a race detector setting, so that a
// race-built test binary playing either exits at once.
// containermaxprocs=0 keeps the Go runtime from holding the cgroup v1
// cpu files open for its whole life (Go 1.25+), which would pin that
// mount (a helper of ours holds nothing the launcher may want to
// unmount). GOMAXPROCS=1 from the start: the runtime then starts fewer
// threads than it would before guardMain could set it.
func guardEnv() []string {
	env := []string{"GODEBUG=containermaxprocs=0", "GOMAXPROCS=1"}
	if race, ok := os.LookupEnv("GORACE"); ok {
		env = append(env, "GORACE="+race)
	}
	return env
}

// verifyMain is the guard proper after the porch, executed by it with the
// guard's descriptors at their slots (the armed pipe closed): args are
// verifyArg, the mode and a hand-off ([Spec.args]). For verifyFinish
// the hand-off's number
// is the end's budget: the porch saw a valid finish but its cheap test
// did not show the session empty (zombies left in group E, say), so this
// looks itself, exits if the holders are empty, and else keeps guarding
// as the re-executed guard does. For verifyGone it is the end's deadline
// (CLOCK_MONOTONIC nanoseconds): the starter is gone and the porch has
// struck; this ends what is left, removes the session cgroup and gives
// the terminal back. It never returns.
func verifyMain(args []string) {
	if len(args) == 3 && args[2] == verifyProbe {
		// The protocol was checked by guardMain: answer it.
		_, _ = os.Stdout.WriteString(probeAnswer())
		os.Exit(exitDone)
	}
	settle()
	mode, c, ok := parseArgs(args)
	if !ok || mode == "" {
		// Not the porch's: nothing here can be trusted to name the session.
		os.Exit(exitRefused)
	}
	// The porch checked the cgroup at arming and struck it; one that
	// cannot be read now is ended with the rest, unconfirmed, and the mark
	// stands in for it.
	g, _ := guard(c, nil)
	if mode == verifyFinish {
		if g.obeyed() || finished(c.PGID, g.obeyed) {
			os.Exit(exitDone)
		}
		endSession(g, c.Budget)
	}
	// The hand-off's number is the deadline here.
	endSession(g, max(c.Budget-time.Duration(sys.MonotonicNanos()), 0))
}

// parseHandoff reads what [Spec.args] wrote, and nothing else: "-"
// where it wrote none. Each descriptor it names is at its slot. The
// ledger record must be the record of the session whose mark it reads,
// so that the guard can remove no other file than its session's record.
func parseHandoff(args []string) (Spec, bool) {
	if len(args) != 7 {
		return Spec{}, false
	}
	set := func(i int) bool { return args[i] != "-" }
	pgid, err1 := strconv.Atoi(args[0])
	num, err2 := strconv.ParseInt(args[1], 10, 64)
	h := Spec{PGID: pgid, Budget: time.Duration(num), Release: args[5] == releaseWord}
	ok := err1 == nil && err2 == nil && pgid > 1 && (h.Release || !set(5))
	if set(2) {
		h.TTY = wire.SlotTTY
		h.TTYGroup, err1 = strconv.Atoi(args[2])
		ok = ok && err1 == nil && h.TTYGroup > 1
	}
	if set(3) {
		_, _, _, named := cgroup.ParseName(args[3])
		h.Cgroup, h.CgroupParent, h.CgroupName = wire.SlotCgroup, wire.SlotCgroupP, args[3]
		ok = ok && named
	}
	if set(4) {
		idText, sinceText, _ := strings.Cut(args[4], "@") // "ID@SINCE"
		_, err1 = mark.Parse(idText)
		h.Mark = idText
		h.MarkSince, err2 = strconv.ParseUint(sinceText, 10, 64)
		ok = ok && err1 == nil && err2 == nil && strconv.FormatUint(h.MarkSince, 10) == sinceText
	}
	if set(6) {
		h.Ledger = wire.SlotLedger
		ok = ok && h.Mark != "" && args[6] == h.record()
	}
	if !ok {
		return Spec{}, false
	}
	return h, true
}

// obeyed is when a finish is obeyed: the holders are empty, or, where
// the starter may release the session, the Engine (holders[0]) has
// exited.
func (g guarded) obeyed() bool {
	if empty(g.holders) {
		return true
	}
	if !g.Release {
		return false
	}
	live, err := g.holders[0].Live()
	return err == nil && len(live) == 0
}

func check(pgid int) int {
	if own, err := sys.Getpgid(0); err != nil || own == pgid {
		return refusedInGroup
	}
	switch err := sys.GroupSignal(wire.SlotGate, 0); {
	case errors.Is(err, sys.ErrNoGroupSignal):
		return refusedNoGroupSignal
	case errors.Is(err, sys.ErrGone):
		return refusedGroupGone
	case err != nil:
		return refusedSetup
	}
	return 0
}

// maxMessages bounds what the guard buffers of the starter's pipe: a
// finish line is a few bytes, and anything longer is not the starter's.
const maxMessages = 4 * wire.MaxLine

// finished reads the starter's messages while it watches the starter, and
// reports true once a complete "finish PGID" line has come and empty then
// shows the session's holders empty. A finish while they are not empty —
// the starter reported survivors, or someone else wrote into the pipe — is
// not obeyed: the guard keeps guarding. It reports false, and the guard
// ends the session, when the starter is gone (its pidfd readable, or the
// end of the pipe) or a line is not a valid finish (fail closed). Every
// read is of what poll showed there, so a partial message cannot block
// the guard while the starter dies.
func finished(pgid int, empty func() bool) bool {
	if sys.SetNonblock(wire.SlotFinish, true) != nil {
		return false
	}
	var pending []byte
	buf := make([]byte, wire.MaxLine)
	starter := int32(wire.SlotStarter)
	if sys.Pidless {
		starter = -1 // poll ignores it: the pipe alone tells
	}
	for {
		fds := []sys.PollFd{{Fd: wire.SlotFinish, Events: sys.POLLIN}, {Fd: starter, Events: sys.POLLIN}}
		if _, err := sys.Poll(fds, -1); err != nil {
			return false
		}
		if fds[0].Revents == 0 {
			if fds[1].Revents != 0 {
				return false // the starter is gone
			}
			continue
		}
		n, err := sys.Read(wire.SlotFinish, buf)
		if errors.Is(err, syscall.EAGAIN) {
			continue
		}
		if err != nil || n == 0 {
			return false // the end of the pipe
		}
		pending = append(pending, buf[:n]...)
		if len(pending) > maxMessages {
			return false
		}
		for i := bytes.IndexByte(pending, '\n'); i >= 0; i = bytes.IndexByte(pending, '\n') {
			line := pending[:i+1]
			pending = pending[i+1:]
			if wire.Expect(line, wire.Finish, pgid) != nil {
				return false
			}
			if empty() {
				return true
			}
		}
	}
}

// empty reports whether every holder shows it holds no live process.
func empty(holders []end.Holder) bool {
	return !slices.ContainsFunc(holders, func(h end.Holder) bool {
		live, err := h.Live()
		return err != nil || len(live) > 0
	})
}

// endSession ends every holder of the session g, SIGKILL in rounds until
// all are empty or the budget has passed, and exits. Once the starter is
// gone the marked processes are ended too (endHolders): those that left
// group E had the starter as their subreaper, or nobody. The pin is
// reaped only after the last group signal. The session's ledger record is
// removed once the end reached Empty, and kept otherwise.
func endSession(g guarded, budget time.Duration) {
	holders := g.endHolders()
	r := end.End(holders, end.Plan{Budget: budget})
	g.pin.end()
	r = endContainers(g.record(), r, budget)
	forget(g.record(), r, unverified(holders))
	if g.Cgroup > 2 {
		removeCgroup(g.CgroupName)
	}
	// In terminal mode, give the terminal back to the starter's group if
	// the Engine's group still has it (the guard ignores SIGTTOU).
	if g.TTY > 0 {
		if fg, err := sys.Tcgetpgrp(wire.SlotTTY); err == nil && fg == g.PGID {
			_ = sys.Tcsetpgrp(wire.SlotTTY, g.TTYGroup)
		}
	}
	os.Exit(exitDone)
}

// endContainers has the engine named in the session's ledger record
// (record, "" for none) stop the session's containers at once, and
// remove those made with --rm, once the end r is over: their engine kept
// them running when the session's processes died. budget bounds it. A
// failure makes r's outcome Survivors, so that the record stays for a
// reclaim.
func endContainers(record string, r end.Report, budget time.Duration) end.Report {
	if record == "" {
		return r
	}
	rec, err := ledger.ReadRecord(wire.SlotLedger, record)
	if err != nil || rec.Containers == nil {
		return r
	}
	ctx, cancel := context.WithTimeout(context.Background(), budget)
	defer cancel()
	if _, err := rec.Containers.End(ctx, rec.Session, 0); err != nil {
		r.Err = errors.Join(r.Err, err)
		if r.Outcome == launch.Empty || r.Outcome == launch.Unconfirmed {
			r.Outcome = launch.Survivors
		}
	}
	return r
}

// parseArgs reads a guard's command line: arg, or verifyArg and its mode
// (verifyFinish or verifyGone; mode is "" after arg), then what
// [parseHandoff] reads. The number is the budget in nanoseconds after
// arg, more than 0; after a mode it may be 0.
func parseArgs(args []string) (mode string, c Spec, ok bool) {
	at := 2
	switch {
	case len(args) > 2 && args[1] == verifyArg && (args[2] == verifyFinish || args[2] == verifyGone):
		mode, at = args[2], 3
	case len(args) < 2 || args[1] != arg:
		return "", Spec{}, false
	}
	c, ok = parseHandoff(args[at:])
	return mode, c, ok && (c.Budget > 0 || mode != "" && c.Budget == 0)
}

// unverified lists, once the end is over, the candidates the holders
// could not verify that something besides the mark ties to the session:
// those of a holder with candidates it cannot verify and never signals
// (mark.Holder on Linux).
func unverified(holders []end.Holder) []mark.Left {
	var tied []mark.Left
	for _, h := range holders {
		if u, ok := h.(interface{ Unverified() ([]mark.Left, error) }); ok {
			if t, err := u.Unverified(); err == nil {
				tied = append(tied, t...)
			}
		}
	}
	return tied
}

// forget removes the session's ledger record (record, "" for none) by its
// name relative to the ledger's directory descriptor, once the end r
// reached Empty and no candidate it could not verify is tied to the
// session (tied): nothing of the session is left for a reclaim to end.
// After any other end the record stays, so that a reclaim can try again
// and name them, and the guard writes into it what its end came to (the
// record's guard_end, which a reclaim reports): its standard error is
// /dev/null. Only if that write fails does it say so there.
func forget(record string, r end.Report, tied []mark.Left) {
	if record == "" {
		return
	}
	if r.Outcome != launch.Empty || len(tied) > 0 {
		// What the end came to, the candidates tied to the session it
		// could not verify, and when.
		note := r.Describe()
		sep := "; not verified, tied to the session: "
		for _, l := range tied {
			note += sep + l.Reason + " " + strconv.Itoa(l.PID) // "mark-unreadable 1234, ..."
			sep = ", "
		}
		if err := ledger.NoteEnd(wire.SlotLedger, record, note+" at "+ledger.Now()); err != nil {
			fmt.Fprintf(os.Stderr, "%s: the session's end was %s: its ledger record %s stays for a reclaim, without this: %v\n", wire.GuardComm, r.Outcome, record, err)
		}
		return
	}
	if err := sys.Unlinkat(wire.SlotLedger, record, 0); err != nil && !errors.Is(err, syscall.ENOENT) {
		fmt.Fprintf(os.Stderr, "%s: the ledger record %s stays: %v\n", wire.GuardComm, record, err)
	}
}

// Probe checks that the binary at path plays the gate and the guard of
// this protocol, as a starter's helper binary ([Spec.Exe]) must; see
// checkProtocolOf. The requested form asks it of an installed
// session-starter before it relies on one.
func Probe(path string) error {
	fd, err := openGuardBinary(path)
	if err == nil {
		sys.Close(fd)
	}
	return err
}

// openGuardBinary opens the binary the porch executes as the guard proper
// and checks, before the session relies on it, that it speaks this
// protocol: the porch executes it through this descriptor, never a path,
// so a binary replaced on disk mid-session (an upgrade of the installed
// session-starter) is not what runs.
func openGuardBinary(path string) (int, error) {
	fd, err := sys.Open(path, syscall.O_RDONLY)
	if err != nil {
		return -1, err
	}
	if err := checkProtocolOf(fd, path); err != nil {
		sys.Close(fd)
		return -1, err
	}
	return fd, nil
}

// probeAnswer is what a binary of this protocol answers to the probe.
func probeAnswer() string { return fmt.Sprintf("session-starter guard protocol %d\n", wire.Protocol) }

// checkedBinaries records the binaries (device, inode, size, change time)
// found to speak this protocol.
var checkedBinaries sync.Map

// checkProtocolOf checks that the binary open at fd (found at path) plays
// the guard of this protocol. This process's own binary does; another
// (the requested form's installed session-starter) is asked once: it is
// run in the verify mode with "probe", which a binary of this protocol
// answers with probeAnswer and exit status 0; one of another protocol
// refuses (125), one older than the verify mode takes the argument for a
// PROGRAM that does not exist (127). A binary without the hidden modes
// would run as itself: only binaries that have them are ever given as a
// guard (package starter's Exe).
func checkProtocolOf(fd int, path string) error {
	st, err := sys.Fstat(fd)
	if err != nil {
		return err
	}
	if own, err := sys.Fstatat(sys.AT_FDCWD, "/proc/self/exe", 0); err == nil && own.Dev == st.Dev && own.Ino == st.Ino {
		return nil
	}
	key := [4]int64{int64(st.Dev), int64(st.Ino), st.Size, st.Ctim.Nano()}
	if _, ok := checkedBinaries.Load(key); ok {
		return nil
	}
	cmd := exec.Command("/proc/self/fd/"+strconv.Itoa(fd), verifyArg, verifyProbe)
	if runtime.GOOS != "linux" {
		cmd.Path = path // no /proc/self/fd: by path, checked once
	}
	cmd.Args[0] = "session-starter"
	cmd.Env = guardEnv()
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil || string(out) != probeAnswer() {
		return fmt.Errorf("%s does not play the guard of protocol %d: %q, %v: %s", path, wire.Protocol, out, err, strings.TrimSpace(stderr.String()))
	}
	checkedBinaries.Store(key, true)
	return nil
}
