//go:build darwin || freebsd || linux

package contain

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"syscall"

	"github.com/session-starter/session-starter/internal/end"
	"github.com/session-starter/session-starter/internal/mark"
	"github.com/session-starter/session-starter/internal/proc"
	"github.com/session-starter/session-starter/internal/sys"
	"github.com/session-starter/session-starter/starter/launch"
)

// tree is a started call on Unix: its leader, held through its exit
// descriptor (a pidfd on Linux) while it is unreaped, the group it leads,
// and on Linux in a cgroup-mode session its own cgroup.
type tree struct {
	pid, fd int
	cg      *callCgroup
	mk      *callMark // the call's own mark, without a cgroup
	killed  bool
	// kept holds what a release left, for EndReleased: each process by
	// a pidfd (Linux), and the call's cgroup stays open.
	kept []*end.Process
}

// conflict names the field of a that asks for a group, session or
// terminal of its own, or "".
func conflict(a *syscall.SysProcAttr) string {
	switch {
	case a.Setsid:
		return "Setsid"
	case a.Setpgid && a.Pgid != 0:
		return "Pgid"
	case a.Setctty:
		return "Setctty"
	case a.Foreground:
		return "Foreground"
	}
	return conflictOS(a)
}

// startTree starts the leader in a group of its own (and a cgroup of its
// own where the session has one), and takes hold of its exit.
func (c *Cmd) startTree() error {
	var attr syscall.SysProcAttr
	if c.SysProcAttr != nil {
		attr = *c.SysProcAttr
	}
	attr.Setpgid, attr.Pgid = true, 0
	c.keepMark()
	cg, err := placeCall(&attr, c.result.ID, c.Limits)
	if err != nil {
		return err
	}
	var mk *callMark
	switch {
	case cg != nil:
		// The cgroup decides: no mark of the call's.
	case inHelper:
		mk = callMarkOf(c.Env) // the Engine gave the call its id
	default:
		c.Env, mk = newCallMark(c.Environ())
	}
	pidfd := preparePidfd(&attr)
	c.SysProcAttr = &attr
	restore := passOnlyAsked()
	err = c.Cmd.Start()
	restore()
	if err != nil {
		cg.abandon()
		return err
	}
	fd, err := exitHandle(c.Process.Pid, pidfd)
	if err != nil {
		// Started, but not held: end the leader (os.Process acts through
		// its own pidfd where it has one) and report the call as run.
		_ = c.Process.Kill()
		_ = c.Cmd.Wait()
		cg.abandon()
		c.result.Outcome = Started
		return fmt.Errorf("contain: hold the call's leader %d: %w (it was killed; the call ran)", c.Process.Pid, err)
	}
	c.tree = tree{pid: c.Process.Pid, fd: fd, cg: cg, mk: mk}
	c.result.Group = c.Process.Pid
	if cg != nil {
		c.result.Cgroup = cg.path()
	}
	return nil
}

// keepMark keeps the session mark in a call whose Env was set without
// it: the mark is how the session's guard and reclaim find the call's
// processes once they have left every group the session knows.
func (c *Cmd) keepMark() {
	v, ok := os.LookupEnv(mark.Var)
	if !ok || c.Env == nil {
		return
	}
	if slices.ContainsFunc(c.Env, func(kv string) bool { return strings.HasPrefix(kv, mark.Var+"=") }) {
		return
	}
	c.Env = append(slices.Clip(c.Env), mark.Var+"="+v)
}

// waitExit returns once the leader has exited (it is not reaped).
func (t *tree) waitExit() {
	for {
		fds := []sys.PollFd{{Fd: int32(t.fd), Events: sys.POLLIN}}
		if n, err := sys.Poll(fds, -1); err != nil || n > 0 {
			if err == nil || t.exited() {
				return
			}
		}
	}
}

// exited reports whether the leader has exited, without reaping it.
func (t *tree) exited() bool {
	_, done, err := sys.PeekChild(t.pid, t.fd)
	return err == nil && done
}

// signalGroup signals the leader's group while the leader is unreaped:
// through its pidfd where the kernel can (Linux 6.9), else by number,
// which is safe only because the leader's unreaped exit keeps the number
// — and so the group's — from being handed out again: Wait reaps it only
// after the end.
func (t *tree) signalGroup(sig syscall.Signal) error {
	err := sys.GroupSignal(t.fd, sig)
	if !errors.Is(err, sys.ErrNoGroupSignal) {
		return err
	}
	return sys.KillGroup(t.pid, sig)
}

// canRelease reports whether what a leader left can stay inside the
// session once the leader has exited: held by the call's cgroup, or
// re-parented to the session's subreaper. Without either (macOS, the
// portable build, in group mode) the leader's orphans go to init, outside
// every session, so the leader's exit ends the tree instead.
func (t *tree) canRelease() bool { return t.cg != nil || sys.CanAdoptOrphans }

// holders are the call's holders for the one end: the leader, its group,
// and its cgroup. In a cgroup the group is only signalled (a stop signal
// reaches it on kernels that cannot signal a cgroup's processes safely,
// before 6.13): the cgroup's "populated 0", told by the kernel, shows the
// group empty too, without a /proc scan.
func (t *tree) holders() ([]end.Holder, func()) {
	group := end.Group{PGID: t.pid, Send: t.signalGroup, Forbidden: []int{sys.Getpgrp()}}
	hs := []end.Holder{&end.Process{PID: t.pid, Pidfd: t.fd, Child: true}, group}
	done := func() {}
	if h, release := t.cg.holder(); h != nil {
		hs = append(hs[:1], signalOnly{group}, h)
		done = release
	}
	return hs, done
}

// signalOnly is a holder that is signalled but never looked at: another
// holder's emptiness shows its.
type signalOnly struct{ end.Group }

// Live implements [end.Holder].
func (signalOnly) Live() ([]end.Member, error) { return nil, nil }

// kill ends the whole tree with the one end routine, before the leader
// is reaped.
func (t *tree) kill(c *Cmd, r *Result) error {
	t.killed = true
	hs, done := t.holders()
	defer done()
	var lookErr error // the call's orphans could not be looked for
	if t.cg == nil {
		esc := t.escapees()
		var orphans []*end.Process
		orphans, lookErr = t.mk.orphans(t.pid, t.pid, esc)
		esc = append(esc, orphans...)
		defer closeAll(esc)
		for _, p := range esc {
			r.Escaped = append(r.Escaped, p.PID)
			if !sys.Pidless {
				hs = append(hs, p)
			}
		}
		if h := t.mk.holder(); h != nil {
			// What is orphaned during the end carries the mark.
			hs = append(hs, h)
		}
	}
	rep := end.End(hs, c.plan())
	r.Elapsed = rep.Elapsed
	var err error
	switch rep.Outcome {
	case end.Empty, end.Unconfirmed:
	default:
		for _, m := range rep.Survivors {
			r.Survivors = append(r.Survivors, m.PID)
		}
		err = fmt.Errorf("%w: %s", ErrSurvivors, rep.Describe())
	}
	if lookErr != nil {
		// Nothing says that the tree ended.
		err = errors.Join(err, fmt.Errorf("%w: %w", ErrSurvivors, lookErr))
	}
	return err
}

// release lists what the exited leader left running, while its unreaped
// exit still holds the group's number: every PID a scan finds in the
// group then is the group's (end.Group checks the group before and after
// the scan), and the call's orphans. In cgroup mode the call's cgroup is
// listed too. An error says the orphans could not be looked for: the list
// may be short.
func (t *tree) release() ([]int, error) {
	hs, done := t.holders()
	defer done()
	// The leader's exit is unreaped: it is no live member.
	left := end.LivePIDs(hs[1:])
	for _, pid := range left {
		t.keep(pid)
	}
	var err error
	if t.cg == nil {
		var esc, orphans []*end.Process
		if len(left) > 0 {
			esc = t.escapees()
		}
		orphans, err = t.mk.orphans(t.pid, t.pid, esc)
		for _, p := range append(esc, orphans...) {
			if slices.Contains(left, p.PID) || sys.Pidless {
				sys.Close(p.Pidfd)
				continue
			}
			left = append(left, p.PID)
			t.kept = append(t.kept, p)
		}
	}
	slices.Sort(left)
	return left, err
}

// keep holds a released member of the call's group by a pidfd, in group
// mode where there are pidfds: opened while the leader's unreaped exit
// still holds the group's number, and kept only if the process is then
// still in the group — no other process can be, so the pidfd is of the
// member found. (In cgroup mode the cgroup holds them.)
func (t *tree) keep(pid int) {
	if t.cg != nil || sys.Pidless {
		return
	}
	fd, err := sys.WatchExit(pid)
	if err != nil {
		return
	}
	if pg, err := sys.Getpgid(pid); err != nil || pg != t.pid {
		sys.Close(fd)
		return
	}
	t.kept = append(t.kept, &end.Process{PID: pid, Pidfd: fd})
}

// endReleased ends what a release left, through the handles kept: the
// processes' pidfds, or the call's cgroup.
func (t *tree) endReleased(c *Cmd) error {
	var hs []end.Holder
	for _, p := range t.kept {
		hs = append(hs, p)
	}
	if len(t.kept) > 0 {
		// What the processes left forked since carries the call's mark.
		if h := t.mk.holder(); h != nil {
			hs = append(hs, h)
		}
	}
	if h, release := t.cg.holder(); h != nil {
		hs = append(hs, h)
		defer release()
	}
	if len(hs) == 0 {
		if sys.Pidless && len(c.result.Left) > 0 {
			return fmt.Errorf("%w: without pidfds the processes a call left cannot be held after its leader was reaped; the session ends them", ErrNotSupported)
		}
		return nil
	}
	rep := end.End(hs, c.plan())
	t.forget(true)
	if rep.Outcome == end.Empty || rep.Outcome == end.Unconfirmed {
		return nil
	}
	return fmt.Errorf("%w: %s", ErrSurvivors, rep.Describe())
}

// forget releases the handles kept for endReleased; ended says whether
// the call's cgroup may be removed.
func (t *tree) forget(ended bool) {
	closeAll(t.kept)
	t.kept = nil
	t.cg.done(ended)
	t.cg = nil
}

// maxWalk bounds the processes escapees looks at.
const maxWalk = 4096

// escapees finds, in group mode, the call's processes that left its
// group (setsid, a setpgid of their own): the descendants, in another
// group, of the leader and of the group's members, as the process table
// shows them now. Each is held by an exit descriptor opened after it was
// seen and kept only if the process then still has the parent and start
// time it was seen with — so the handle is of the process seen, not of
// one that took its number. One whose parent exited before the walk is
// not found: it was re-parented (to the session's subreaper, which ends
// it with the session).
func (t *tree) escapees() []*end.Process {
	roots := []int{t.pid}
	if ms, err := proc.LiveMembers(t.pid); err == nil {
		for _, m := range ms {
			roots = append(roots, m.PID)
		}
	}
	seen := map[int]bool{}
	var out []*end.Process
	for len(roots) > 0 && len(seen) < maxWalk {
		parent := roots[0]
		roots = roots[1:]
		if seen[parent] {
			continue
		}
		seen[parent] = true
		kids, err := proc.Children(parent)
		if err != nil {
			continue
		}
		for _, kid := range kids {
			roots = append(roots, kid)
			st, err := proc.ReadStat(kid)
			if err != nil || st.Pgrp == t.pid || st.PPID != parent || !st.Live() {
				continue
			}
			fd, err := sys.WatchExit(kid)
			if err != nil {
				continue
			}
			again, err := proc.ReadStat(kid)
			if err != nil || again.StartTime != st.StartTime || again.PPID != parent {
				sys.Close(fd)
				continue
			}
			out = append(out, &end.Process{PID: kid, Pidfd: fd})
		}
	}
	return out
}

func closeAll(ps []*end.Process) {
	for _, p := range ps {
		sys.Close(p.Pidfd)
	}
}

// usage is what the call's tree used, once its leader is reaped (ps):
// its cgroup's counters in cgroup mode — the whole tree, exited processes
// included — else the CPU time the leader's reap reported (its rusage:
// the leader's own time and that of the processes it reaped itself).
func (t *tree) usage(ps *os.ProcessState) launch.Usage {
	if u, ok := t.cg.usage(); ok {
		return u
	}
	var u launch.Usage
	if ps != nil {
		u.SetCPU(ps.UserTime()+ps.SystemTime(), "rusage")
	}
	return u
}

// close releases the exit descriptor once the leader is reaped, and
// removes a killed call's cgroup. A released call's stays open for
// endReleased, unless it left nothing: no process kept, and its cgroup
// empty (its removal, which the kernel refuses for a populated cgroup,
// is the proof), so a call that left nothing holds nothing until Close.
func (t *tree) close() {
	if t.fd >= 0 {
		sys.Close(t.fd)
		t.fd = -1
	}
	if t.killed || (len(t.kept) == 0 && t.cg.removeEmpty()) {
		t.forget(true)
	}
}

// plan is how a call is ended.
func (c *Cmd) plan() end.Plan {
	stop := c.StopSignal
	if stop == 0 {
		stop = syscall.SIGTERM
	}
	budget := c.KillBudget
	if budget <= 0 {
		budget = launch.DefaultKillBudget
	}
	return end.Plan{Stop: stop, Grace: c.Grace, Budget: budget}
}

// pipeHolders lists the processes other than this one that hold f's
// pipe, or nil where that cannot be found.
func pipeHolders(f *os.File) []int {
	// Stat, not Fd: Fd would set the pipe blocking, and Close would no
	// longer wake the copy that reads it.
	fi, err := f.Stat()
	if err != nil {
		return nil
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return nil
	}
	pids, err := proc.PipeHolders(uint64(st.Ino))
	if err != nil {
		return nil
	}
	return slices.DeleteFunc(pids, func(p int) bool { return p == os.Getpid() })
}
