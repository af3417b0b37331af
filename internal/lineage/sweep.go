//go:build darwin || freebsd || linux

package lineage

import (
	"errors"
	"slices"
	"syscall"

	"github.com/session-starter/session-starter/internal/end"
	"github.com/session-starter/session-starter/internal/sys"
)

// Table is how a sweep reads and acts on the machine (the platform's:
// table_darwin.go, table_freebsd.go; fabricated in tests).
type Table struct {
	// Snapshot reads every process of the table now.
	Snapshot func() ([]Proc, error)
	// Open opens pid for a signal — registers a watch on its exit — and
	// then reads it again: the handle and the fresh read. [sys.ErrGone]
	// when no process has the number, or it has exited.
	Open func(pid int) (Handle, Proc, error)
}

// Excluding is tab with the processes numbered pids left out of every
// snapshot: they are never found, so never signalled. The caller names
// processes whose numbers are theirs while the sweep is used (itself, its
// unreaped children).
func Excluding(tab Table, pids ...int) Table {
	snapshot := tab.Snapshot
	tab.Snapshot = func() ([]Proc, error) {
		ps, err := snapshot()
		return slices.DeleteFunc(ps, func(p Proc) bool { return slices.Contains(pids, p.ID.PID) }), err
	}
	return tab
}

// Handle is an opened process.
type Handle interface {
	// Signal sends sig unless the process exited since it was opened
	// ([sys.ErrGone] then).
	Signal(sig syscall.Signal) error
	Close()
}

// maxPasses bounds the passes of one look: a tree that forks faster than
// the table is read is found further at the next look or round.
const maxPasses = 16

// Sweep is the session's escapees found by lineage, as a holder of the
// end (package internal/end). Every look and every signal takes passes
// again, so that what forked since is found.
type Sweep struct {
	tab      Table
	root     Identity
	uid      int
	found    map[Identity]Proc
	unmarked map[Identity]bool // environments read once, without the mark
}

// NewSweep starts from the Engine's identity root; uid is the session's
// user, whose processes alone are signalled (root's too: a descendant
// that changed to another user is reported, not signalled). It takes the
// first passes at once, before the end signals anything: a FreeBSD
// process is linked to its parent only while both are seen. The session
// makes it when its end begins, so what it links is
// the tree as it stands then: a double fork's middle that exited earlier
// is not seen, and its child is found by its mark alone.
func NewSweep(root Identity, uid int, tab Table) *Sweep {
	s := &Sweep{tab: tab, root: root, uid: uid, found: map[Identity]Proc{}, unmarked: map[Identity]bool{}}
	_ = s.discover() // a failed read is the first look's error, when it fails again
	return s
}

// discover takes passes over fresh snapshots until one adds nothing.
func (s *Sweep) discover() error {
	for range maxPasses {
		snap, err := s.tab.Snapshot()
		if err != nil {
			return err
		}
		if s.Pass(snap) == 0 {
			return nil
		}
	}
	return nil
}

// Traits implements end.Holder: these are the escapees of the platforms
// without a subreaper, which gain orphans as the session dies; each look
// reads the whole process table.
func (s *Sweep) Traits() end.Traits {
	return end.Traits{Kind: end.KindEscapees, Gains: true, Scans: true}
}

// Notify implements end.Holder: nothing announces their end.
func (s *Sweep) Notify() (int, int16) { return -1, 0 }

// opened is a found process opened and verified for a signal.
type opened struct {
	h    Handle
	live Proc
}

// open opens every found process that verifies now — by the same
// identity under its PID, of the session's user, live — but those of
// skip, opened already.
func (s *Sweep) open(skip map[int]bool) []opened {
	var out []opened
	for _, f := range s.Found() {
		if skip[f.ID.PID] {
			continue
		}
		h, live, err := s.tab.Open(f.ID.PID)
		if err != nil {
			continue
		}
		if !s.Verify(live) || !live.Stat.Live() {
			h.Close()
			continue
		}
		out = append(out, opened{h, live})
	}
	return out
}

// Signal implements end.Holder.
func (s *Sweep) Signal(sig syscall.Signal) error { return s.SignalOnce(sig, end.NewReached()) }

// SignalOnce implements end.OnceHolder: sig to every found process that
// verifies right before it, but those r has (group E's members, when
// the group was signalled first), each recorded in r. SIGKILL stops them
// first (SIGSTOP: a stopped process neither forks nor reaps), takes the
// passes again so that what they forked meanwhile is found, sends SIGKILL
// to all, then SIGCONT to those it stopped. It returns sys.ErrGone once no found process is
// live, verified or not.
func (s *Sweep) SignalOnce(sig syscall.Signal, r *end.Reached) error {
	if err := s.discover(); err != nil {
		return err
	}
	targets := s.open(nil)
	defer func() {
		for _, o := range targets {
			o.h.Close()
		}
	}()
	var stopped []opened
	if sig == syscall.SIGKILL {
		opened := map[int]bool{}
		for _, o := range targets {
			opened[o.live.ID.PID] = true
			if !r.Has(o.live.ID.PID, o.live.Stat.Pgrp) && o.h.Signal(syscall.SIGSTOP) == nil {
				stopped = append(stopped, o)
			}
		}
		if err := s.discover(); err != nil {
			return err
		}
		targets = append(targets, s.open(opened)...)
	}
	var errs []error
	for _, o := range targets {
		if r.Has(o.live.ID.PID, o.live.Stat.Pgrp) {
			continue
		}
		switch err := o.h.Signal(sig); {
		case err == nil:
			r.Process(o.live.ID.PID)
		case !errors.Is(err, sys.ErrGone):
			errs = append(errs, err)
		}
	}
	// What SIGKILL did not end is not left stopped: SIGCONT to what the
	// stop above reached, and to nothing else.
	for _, o := range stopped {
		_ = o.h.Signal(syscall.SIGCONT)
	}
	if len(targets) == 0 {
		if live, err := s.Live(); err == nil && len(live) == 0 {
			return sys.ErrGone
		}
	}
	return errors.Join(errs...)
}

// Live implements end.Holder: the found processes live now — those that
// verify, and, never signalled, those of another user (Denied) and those
// whose identity could not be read again (as the snapshot saw them). A
// number that now names another process is not the one found, and is
// left out.
func (s *Sweep) Live() ([]end.Member, error) {
	if err := s.discover(); err != nil {
		return nil, err
	}
	var out []end.Member
	for _, f := range s.Found() {
		h, live, err := s.tab.Open(f.ID.PID)
		switch {
		case errors.Is(err, sys.ErrGone):
			continue
		case err != nil:
			if f.Stat.Live() {
				out = append(out, end.Member{Stat: f.Stat, UID: f.UID, Denied: !s.owns(f.UID)})
			}
			continue
		}
		h.Close()
		if s.Same(live) && live.Stat.Live() {
			out = append(out, end.Member{Stat: live.Stat, UID: live.UID, Denied: !s.owns(live.UID)})
		}
	}
	return out, nil
}
