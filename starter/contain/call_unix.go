//go:build darwin || freebsd || linux

package contain

import (
	"cmp"
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
// descriptor (a pidfd on Linux) while it is unreaped, and the layers that
// hold the rest of its tree.
type tree struct {
	pid, fd int
	layers  []callLayer
	killed  bool
}

// A callLayer is one mechanism that holds a call's tree: the leader's
// group, the call's cgroup (Linux, in a cgroup-mode session), the
// escapees a walk finds and the call's mark (without a cgroup). Each acts
// only inside a step of the tree; a step calls every layer in the list's
// order.
type callLayer interface {
	// born adds to attr, c.Env and c's result what the leader is born
	// into.
	born(c *Cmd, attr *syscall.SysProcAttr)
	// holders lists the layer's holders for the end of the whole tree,
	// while the leader's exit is unreaped, and the processes it found
	// outside the leader's group (r.Escaped). An error says some could
	// not be looked for.
	holders(t *tree) ([]end.Holder, []*end.Process, error)
	// release lists what the exited leader left that the layer finds and
	// left lacks, and keeps a handle of each for endReleased.
	release(t *tree, left []int) ([]int, error)
	// leftHolders adds to hs (the layers' before it) the holders of what
	// the release left.
	leftHolders(hs []end.Holder) []end.Holder
	// ended adds to u the layer's counters once the leader is reaped (ps).
	ended(u *launch.Usage, ps *os.ProcessState)
	// holds reports, once the leader of a released call is reaped,
	// whether the layer still holds something for endReleased.
	holds() bool
	// close releases what the layer holds; remove says that what the
	// tree left ended, so the layer may remove what it made.
	close(remove bool)
}

// conflict names the field of a that asks for a group, session or
// terminal of its own, or "".
func conflict(a *syscall.SysProcAttr) string {
	switch {
	case a == nil:
		return ""
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
	c.keepMark()
	layers, err := c.callLayers()
	if err != nil {
		return err
	}
	for _, l := range layers {
		l.born(c, &attr)
	}
	// Until the leader is held, a failed start closes the layers (and
	// removes the call's cgroup) through the tree.
	c.tree = tree{layers: layers}
	pidfd := preparePidfd(&attr)
	c.SysProcAttr = &attr
	restore := passOnlyAsked()
	err = c.Cmd.Start()
	restore()
	if err != nil {
		c.tree.forget(true)
		c.result.Cgroup = ""
		return err
	}
	fd, err := exitHandle(c.Process.Pid, pidfd)
	if err != nil {
		// Started, but not held: end the leader (os.Process acts through
		// its own pidfd where it has one) and report the call as run.
		_ = c.Process.Kill()
		_ = c.Cmd.Wait()
		c.tree.forget(true)
		c.result.Cgroup = ""
		c.result.Executed = Started
		c.endErr = fmt.Errorf("contain: hold the call's leader %d: %w (it was killed; the call ran)", c.Process.Pid, err)
		close(c.done) // no watch runs: Kill and Wait return this error at once
		return c.endErr
	}
	c.tree.pid, c.tree.fd = c.Process.Pid, fd
	c.result.Group = c.Process.Pid
	return nil
}

// callLayers are the layers of a call: the leader's group, and its cgroup
// where the session has one (the cgroup decides there), else the escapees
// a walk finds and the call's mark.
func (c *Cmd) callLayers() ([]callLayer, error) {
	cg, err := placeCall(c.result.ID, c.Limits)
	if err != nil {
		return nil, err
	}
	if cg != nil {
		shown := func() bool { h, _, _ := cg.holders(nil); return len(h) > 0 }
		return []callLayer{&groupLayer{shown: shown}, cg}, nil
	}
	ls := []callLayer{&groupLayer{}, &walkLayer{}}
	if mk := c.markLayer(); mk != nil {
		ls = append(ls, mk)
	}
	return ls, nil
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
func (c *Cmd) canRelease() bool { return sys.CanAdoptOrphans || c.result.Cgroup != "" }

// kill ends the whole tree with the one end routine, before the leader
// is reaped.
func (t *tree) kill(c *Cmd, r *Result) error {
	t.killed = true
	var hs []end.Holder
	var found []*end.Process
	var lookErr error // some of the call's processes could not be looked for
	for _, l := range t.layers {
		h, esc, err := l.holders(t)
		lookErr = errors.Join(lookErr, err)
		for _, p := range esc {
			if slices.ContainsFunc(found, func(f *end.Process) bool { return f.PID == p.PID }) {
				sys.Close(p.Pidfd)
				continue
			}
			found = append(found, p)
			r.Escaped = append(r.Escaped, p.PID)
			if !sys.Pidless {
				hs = append(hs, p)
			}
		}
		hs = append(hs, h...)
	}
	defer closeAll(found)
	err := endAll(hs, c.plan(), r)
	if lookErr != nil {
		// Nothing says that the tree ended.
		err = errors.Join(err, fmt.Errorf("%w: %w", ErrSurvivors, lookErr))
	}
	return err
}

// release lists what the exited leader left running, while its unreaped
// exit still holds the group's number: every PID a scan finds in the
// group then is the group's (end.Group checks the group before and after
// the scan), the call's escapees and orphans, or what its cgroup holds.
// An error says some could not be looked for: the list may be short.
func (t *tree) release() ([]int, error) {
	var left []int
	var errs error
	for _, l := range t.layers {
		pids, err := l.release(t, left)
		left = append(left, pids...)
		errs = errors.Join(errs, err)
	}
	slices.Sort(left)
	return left, errs
}

// endReleased ends what a release left, through the handles kept: the
// processes' pidfds, or the call's cgroup.
func (t *tree) endReleased(c *Cmd) error {
	var hs []end.Holder
	for _, l := range t.layers {
		hs = l.leftHolders(hs)
	}
	if len(hs) == 0 {
		if sys.Pidless && len(c.result.Left) > 0 {
			return fmt.Errorf("%w: without pidfds the processes a call left cannot be held after its leader was reaped; the session ends them", ErrNotSupported)
		}
		return nil
	}
	err := endAll(hs, c.plan(), &Result{})
	t.forget(true)
	return err
}

// unconfirmedEnds: an end no holder could observe, once SIGKILL reached
// each, counts as the tree's end here.
const unconfirmedEnds = true

// forget releases the handles kept for endReleased; ended says whether
// the call's cgroup may be removed.
func (t *tree) forget(ended bool) {
	for _, l := range t.layers {
		l.close(ended)
	}
	t.layers = nil
}

// groupLayer is the leader and the group it leads. In the call's cgroup
// the group is only signalled (a stop signal reaches it on kernels that
// cannot signal a cgroup's processes safely, before 6.13): the cgroup's
// "populated 0", told by the kernel, shows the group empty too, without a
// /proc scan.
type groupLayer struct {
	keeper
	// shown reports whether another layer's holder shows the group's
	// emptiness now (the call's cgroup, if its holder opens); nil: never.
	shown func() bool
}

// born puts the leader in a group of its own.
func (g *groupLayer) born(_ *Cmd, attr *syscall.SysProcAttr) { attr.Setpgid, attr.Pgid = true, 0 }

func (g *groupLayer) group(t *tree) end.Group {
	return end.Group{PGID: t.pid, Send: t.signalGroup, Forbidden: []int{sys.Getpgrp()}, Unwatched: g.shown != nil && g.shown()}
}

// holders are the leader and its group.
func (g *groupLayer) holders(t *tree) ([]end.Holder, []*end.Process, error) {
	return []end.Holder{&end.Process{PID: t.pid, Pidfd: t.fd, Child: true}, g.group(t)}, nil, nil
}

// release lists the group's members (the leader's exit is unreaped: it is
// no live member) and keeps each by a pidfd in group mode where there
// are pidfds (in cgroup mode the cgroup holds them): opened while the
// leader's unreaped exit still holds the group's number, and kept only
// if the process is then still in the group — no other process can be,
// so the pidfd is of the member found.
func (g *groupLayer) release(t *tree, _ []int) ([]int, error) {
	left := end.LivePIDs([]end.Holder{g.group(t)})
	for _, pid := range left {
		if sys.Pidless || g.shown != nil {
			break
		}
		fd, err := sys.WatchExit(pid)
		if err != nil {
			continue
		}
		if pg, err := sys.Getpgid(pid); err != nil || pg != t.pid {
			sys.Close(fd)
			continue
		}
		g.kept = append(g.kept, &end.Process{PID: pid, Pidfd: fd})
	}
	return left, nil
}

// ended adds the CPU time the leader's reap reported (its rusage: the
// leader's own time and that of the processes it reaped itself).
func (g *groupLayer) ended(u *launch.Usage, ps *os.ProcessState) {
	if ps != nil {
		u.SetCPU(ps.UserTime()+ps.SystemTime(), "rusage")
	}
}

// walkLayer is the escapees a walk from the leader's group finds, in group
// mode: the call's processes that left its group.
type walkLayer struct{ keeper }

func (w *walkLayer) holders(t *tree) ([]end.Holder, []*end.Process, error) {
	return nil, escapees(t.pid), nil
}

// release keeps the escapees of a group that left members.
func (w *walkLayer) release(t *tree, left []int) ([]int, error) {
	if len(left) == 0 {
		return nil, nil
	}
	return w.keepNew(escapees(t.pid), left), nil
}

// keeper holds what a release left, each process by a pidfd, for
// endReleased. A layer that embeds it takes no part in the leader's
// birth or in the call's usage unless it says so.
type keeper struct {
	kept []*end.Process
}

func (*keeper) born(*Cmd, *syscall.SysProcAttr)       {}
func (*keeper) ended(*launch.Usage, *os.ProcessState) {}

// keepNew keeps, of found, the processes left lacks where there are
// pidfds, closing the others, and lists their PIDs.
func (k *keeper) keepNew(found []*end.Process, left []int) []int {
	var pids []int
	for _, p := range found {
		if slices.Contains(left, p.PID) || slices.Contains(pids, p.PID) || sys.Pidless {
			sys.Close(p.Pidfd)
			continue
		}
		pids = append(pids, p.PID)
		k.kept = append(k.kept, p)
	}
	return pids
}

func (k *keeper) leftHolders(hs []end.Holder) []end.Holder {
	for _, p := range k.kept {
		hs = append(hs, p)
	}
	return hs
}

func (k *keeper) holds() bool { return len(k.kept) > 0 }

func (k *keeper) close(bool) {
	closeAll(k.kept)
	k.kept = nil
}

// maxWalk bounds the processes escapees looks at.
const maxWalk = 4096

// escapees finds, in group mode, the call's processes that left the
// group leader leads (setsid, a setpgid of their own): the descendants, in another
// group, of the leader and of the group's members, as the process table
// shows them now. Each is held by an exit descriptor opened after it was
// seen and kept only if the process then still has the parent and start
// time it was seen with — so the handle is of the process seen, not of
// one that took its number. One whose parent exited before the walk is
// not found: it was re-parented (to the session's subreaper, which ends
// it with the session).
func escapees(leader int) []*end.Process {
	roots := []int{leader}
	if ms, err := proc.LiveMembers(leader); err == nil {
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
			if err != nil || st.Pgrp == leader || st.PPID != parent || !st.Live() {
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
// included — else the CPU time the leader's reap reported.
func (t *tree) usage(ps *os.ProcessState) launch.Usage {
	var u launch.Usage
	for _, l := range t.layers {
		l.ended(&u, ps)
	}
	return u
}

// close releases the exit descriptor once the leader is reaped, and
// removes a killed call's cgroup. A released call's stays open for
// endReleased, unless it left nothing: no process kept, and its cgroup
// empty (its removal, which the kernel refuses for a populated cgroup,
// is the proof), so a call that left nothing holds nothing until Close.
func (t *tree) close() {
	sys.CloseFDs(&t.fd)
	if t.killed || !slices.ContainsFunc(t.layers, callLayer.holds) {
		t.forget(true)
	}
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

// plan is how a call is ended: its stop signal (SIGTERM by default), its
// grace and its kill budget (a zero one is the plan's default).
func (c *Cmd) plan() end.Plan {
	return end.Plan{Stop: cmp.Or(c.StopSignal, syscall.SIGTERM), Grace: c.Grace, Budget: c.KillBudget}
}
