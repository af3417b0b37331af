//go:build darwin || freebsd || linux

package lineage

import (
	"cmp"
	"maps"
	"slices"

	"github.com/session-starter/session-starter/internal/mark"
	"github.com/session-starter/session-starter/internal/proc"
)

// Identity names one process for as long as the machine runs: its
// unique id where the kernel has one (macOS), else its PID with its start
// time (FreeBSD; microseconds since the epoch).
type Identity struct {
	PID    int
	Start  uint64
	Unique uint64
}

// key is what an identity is compared by: the unique id where there is
// one, else the PID and start time.
func (id Identity) key() Identity {
	if id.Unique != 0 {
		return Identity{Unique: id.Unique}
	}
	return Identity{PID: id.PID, Start: id.Start}
}

// Is reports whether id and b name the same process: the same unique id
// where there is one, else the same PID and start time.
func (id Identity) Is(b Identity) bool { return id.known() && id.key() == b.key() }

// known reports whether id names a process at all.
func (id Identity) known() bool { return id.key() != Identity{} }

// after reports whether id started after b: by unique id where both
// have one (they are handed out in order), else by start time.
func (id Identity) after(b Identity) bool {
	if id.Unique != 0 && b.Unique != 0 {
		return id.Unique > b.Unique
	}
	return id.Start >= b.Start
}

// Proc is one process of a snapshot of the process table.
type Proc struct {
	ID Identity
	// Parent is the identity of the process's parent as the snapshot
	// knows it (macOS: the parent's unique id, kept after it died until
	// the orphan execs;
	// FreeBSD: its parent PID with that parent's start, from the same
	// snapshot), or zero when it is not known.
	Parent Identity
	UID    int
	Stat   proc.Stat
	// Marked, when set, reads the process's environment and reports
	// whether it carries the session's mark (and the read was of this
	// process: its identity read again after), and whether that answer is
	// settled: an environment read empty is not (a process in the middle
	// of an exec has its new environment's bounds set only after its
	// close-on-exec descriptors are closed), and is asked again at the
	// next pass. It is asked only of a process of the session's user that
	// started after the Engine and is not found otherwise.
	Marked func() (marked, settled bool)
}

// Pass adds the descendants of the Engine that snap shows: every process
// whose parent is the Engine or a process found before, in this pass or
// an earlier one, and every process of the session's user that carries
// the mark and started after the Engine. It goes over snap until a round
// adds nothing, and returns how many processes it added.
func (s *Sweep) Pass(snap []Proc) int {
	added := 0
	for {
		n := 0
		for _, p := range snap {
			k := p.ID.key()
			if _, ok := s.found[k]; ok || !p.ID.known() || k == s.root.key() {
				continue
			}
			if s.descends(p) || s.marked(p) {
				s.found[k] = p
				n++
			}
		}
		if n == 0 {
			return added
		}
		added += n
	}
}

func (s *Sweep) descends(p Proc) bool {
	_, ok := s.found[p.Parent.key()]
	return p.Parent.known() && (ok || p.Parent.key() == s.root.key())
}

// marked asks p's environment for the mark once it has a settled answer:
// the environment read is the one the process was started with, which
// does not change.
func (s *Sweep) marked(p Proc) bool {
	k := p.ID.key()
	if p.Marked == nil || !s.owns(p.UID) || !p.ID.after(s.root) || s.unmarked[k] {
		return false
	}
	marked, settled := p.Marked()
	if !marked && settled {
		s.unmarked[k] = true
	}
	return marked
}

// owns reports whether a process of uid may be signalled for the session.
func (s *Sweep) owns(uid int) bool { return uid == s.uid }

// Found lists what the passes found so far, by PID (the Engine not among
// them): found is not signalled, nor verified now.
func (s *Sweep) Found() []Proc {
	out := slices.Collect(maps.Values(s.found))
	slices.SortFunc(out, func(a, b Proc) int { return cmp.Compare(a.ID.PID, b.ID.PID) })
	return out
}

// Verify is the rule applied right before a signal: live, the fresh
// read of a process opened by its PID, is a process the passes found,
// by the same identity under the same PID, and of the session's user.
func (s *Sweep) Verify(live Proc) bool { return s.Same(live) && s.owns(live.UID) }

// Same is Verify without the user: live is the process found.
func (s *Sweep) Same(live Proc) bool {
	f, ok := s.found[live.ID.key()]
	return ok && live.ID.known() && f.ID.PID == live.ID.PID
}

// byPID names the parents of a listing whose processes are named by PID
// and start time (FreeBSD's; ps holds ID.PID, ID.Start and Stat.PPID):
// a process's parent is its PPID with that parent's start from the same
// listing, and is not known when the listing has no such process or one
// that started after the child (the number was handed out again).
func byPID(ps []Proc) []Proc {
	starts := make(map[int]uint64, len(ps))
	for _, p := range ps {
		starts[p.ID.PID] = p.ID.Start
	}
	for i, p := range ps {
		if start, ok := starts[p.Stat.PPID]; ok && start <= p.ID.Start && p.Stat.PPID != p.ID.PID {
			ps[i].Parent = Identity{PID: p.Stat.PPID, Start: start}
		}
	}
	return ps
}

// carries reads pid's environment and reports whether it carries id in
// the session mark and pid still names the same process after the read
// (same: the platform's identity read again), as [Proc.Marked] does: an
// environment read empty is no settled answer.
func carries(pid int, id mark.ID, same func() bool) (marked, settled bool) {
	env, err := proc.ReadEnviron(pid)
	if err == nil && len(env) == 0 {
		return false, false
	}
	return err == nil && mark.InEnviron(env, id) && same(), true
}

// markedByStart is the Marked of a process named by PID and start time:
// the mark read, then the start time read again.
func markedByStart(pid int, start uint64, id mark.ID) func() (bool, bool) {
	return func() (bool, bool) {
		return carries(pid, id, func() bool {
			again, err := proc.ReadStat(pid)
			return err == nil && again.StartTime == start
		})
	}
}
