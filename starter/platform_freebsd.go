package starter

import (
	"errors"
	"os"
	"syscall"

	"github.com/session-starter/session-starter/guard"
	"github.com/session-starter/session-starter/internal/end"
	"github.com/session-starter/session-starter/internal/proc"
	"github.com/session-starter/session-starter/internal/sys"
)

// subreaper makes this process the reaper of its subtree
// (procctl PROC_REAP_ACQUIRE): orphans of the Engine's tree — also
// processes that left group E with setsid or setpgid — are re-parented
// to it instead of to init. It returns a function that gives the role
// up again, unless the process was a reaper already.
func subreaper() (func(), error) {
	err := sys.ReapAcquire()
	if errors.Is(err, syscall.EBUSY) {
		return func() {}, nil // a reaper already: it stays one
	}
	if err != nil {
		return nil, err
	}
	return func() { _ = sys.ReapRelease() }, nil
}

// reaper is the Engine's subtree under this process, its reaper, with
// Options.Subreaper: every process descended from the gate, whatever
// group or session it moved to, while it lives. Without the reaper it is
// nil, and the sweep by lineage finds what left the Engine's group:
// descendants by (PID, ki_start), seen while their parents live, and by
// the session mark.
func (s *session) reaper() layer {
	if s.adopt.restore == nil {
		return nil
	}
	return &subtree{}
}

// subtree holds the Engine's subtree: the descendants of this process, as
// a reaper, whose reaper subtree is the Engine's (pi_subtree, inherited at
// every fork from the reaper's direct child, the gate, and kept by orphans
// re-parented to the reaper). It is signalled with PROC_REAP_KILL and
// REAPER_KILL_SUBTREE: the kernel picks the members among this reaper's
// descendants alone, and the number names the subtree only while the
// Engine is this process's unreaped child; after its reap nothing is
// signalled this way.
type subtree struct {
	noLayer
	engine *end.Process
}

// hand takes the Engine, known from the gate's spawn on.
func (t *subtree) hand(s *session, _ *guard.Spec) { t.engine = s.engine }

// holders is the subtree itself.
func (t *subtree) holders() []end.Holder { return []end.Holder{t} }

// Traits implements [end.Holder].
func (t *subtree) Traits() end.Traits { return end.Traits{Kind: "reaper"} }

// Notify implements [end.Holder]: nothing announces a subtree's end.
func (t *subtree) Notify() (int, int16) { return -1, 0 }

// Signal implements [end.Holder].
func (t *subtree) Signal(sig syscall.Signal) error {
	if t.engine.Reaped() {
		return sys.ErrGone // the subtree number is no longer pinned: the group and the escapees hold the rest
	}
	return sys.ReapKillSubtree(t.engine.PID, sig) // ErrGone: no process of the subtree was left to signal
}

// Live implements [end.Holder]: the subtree's descendants that are not
// zombies, from PROC_REAP_GETPIDS.
func (t *subtree) Live() ([]end.Member, error) {
	descendants, err := sys.ReapDescendants()
	if err != nil {
		return nil, err
	}
	// Room for those forked since the count; a list that fills it all is
	// asked for again, bigger.
	infos, err := sys.ReapPids(descendants + 64)
	if err != nil {
		return nil, err
	}
	var out []end.Member
	for _, pi := range infos {
		if pi.Subtree != int32(t.engine.PID) || pi.Flags&sys.REAPER_PIDINFO_ZOMBIE != 0 {
			continue
		}
		st, err := proc.ReadStat(int(pi.PID))
		switch {
		case errors.Is(err, os.ErrNotExist): // reaped since the list
		case err != nil:
			return nil, err
		case st.Live():
			out = append(out, end.MemberOf(st))
		}
	}
	return out, nil
}
