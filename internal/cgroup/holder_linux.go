package cgroup

import (
	"errors"
	"fmt"
	"os"
	"syscall"

	"github.com/session-starter/session-starter/internal/end"
	"github.com/session-starter/session-starter/internal/proc"
	"github.com/session-starter/session-starter/internal/sys"
)

// Holder is the session cgroup, with every cgroup below it, as an
// [end.Holder]. It acts through the directory descriptor it was given,
// never through a path.
//
// SIGKILL is cgroup.kill (Linux 5.14), which reaches every process of the
// cgroup and of its descendants. Another signal (a stop signal, SIGCONT)
// goes to each process listed in the cgroup.procs of the cgroup or of one
// below it, through a pidfd opened from the PID, and only if the pidfd
// shows the process in one of those cgroups (PIDFD_GET_INFO with
// PIDFD_INFO_CGROUPID, Linux 6.13): a PID that was reused by someone else
// between the read and the pidfd_open is never signalled. Before Linux
// 6.13 such a signal returns [ErrNoPidfdInfo] and reaches nobody here.
//
// The cgroup is empty when cgroup.events says "populated 0" (zombies do
// not count); the kernel announces each change of that file to poll as
// POLLPRI, so the end is told, not found.
type Holder struct {
	dir    int
	events int
}

// NewHolder opens cgroup.events of the cgroup dirfd names. The caller
// keeps dirfd open while the holder is used, and closes the holder.
func NewHolder(dirfd int) (*Holder, error) {
	fd, err := sys.OpenAt(dirfd, "cgroup.events", sys.O_RDONLY)
	if err != nil {
		return nil, err
	}
	return &Holder{dir: dirfd, events: fd}, nil
}

// Close releases the holder's descriptor of cgroup.events.
func (h *Holder) Close() { sys.CloseFDs(&h.events) }

// Kind names the session cgroup in an end's report.
const Kind end.Kind = "cgroup"

// Traits implements [end.Holder]: the cgroup holds the whole session.
func (h *Holder) Traits() end.Traits { return end.Traits{Kind: Kind, Whole: true} }

// Notify implements [end.Holder].
func (h *Holder) Notify() (int, int16) { return h.events, sys.POLLPRI }

// Signal implements [end.Holder].
func (h *Holder) Signal(sig syscall.Signal) error { return h.SignalOnce(sig, end.NewReached()) }

// SignalOnce implements [end.OnceHolder]: a signal other than SIGKILL
// leaves out the processes r has (group E, signalled as a whole before
// the cgroup, holds the Engine and its group's members), and r then has
// each process it reached. SIGKILL is cgroup.kill whatever r holds.
func (h *Holder) SignalOnce(sig syscall.Signal, r *end.Reached) error {
	if sig == syscall.SIGKILL {
		err := Kill(h.dir)
		if errors.Is(err, syscall.ENOENT) || errors.Is(err, syscall.ENODEV) {
			return sys.ErrGone // the cgroup was removed: it holds nothing
		}
		return err
	}
	ids := map[uint64]bool{}
	var pids []int
	if err := walk(h.dir, maxDepth, func(id uint64, procs []int) {
		ids[id] = true
		pids = append(pids, procs...)
	}); err != nil {
		return err
	}
	var first error
	for _, pid := range pids {
		err := signalIn(pid, ids, sig, r)
		if errors.Is(err, ErrNoPidfdInfo) {
			return err
		}
		if err != nil && !errors.Is(err, sys.ErrGone) && first == nil {
			first = err
		}
	}
	return first
}

// Live implements [end.Holder]: none once "populated 0" or once the
// cgroup was removed (rmdir succeeds only on an empty cgroup with no
// cgroup below it; its files then answer ENODEV), else each process
// listed in the cgroup or below it.
func (h *Holder) Live() ([]end.Member, error) {
	populated, err := readPopulated(h.events)
	if errors.Is(err, syscall.ENODEV) {
		return nil, nil
	}
	if err != nil || !populated {
		return nil, err
	}
	var out []end.Member
	err = walk(h.dir, maxDepth, func(_ uint64, procs []int) {
		for _, pid := range procs {
			if st, err := proc.ReadStat(pid); err == nil && st.Live() {
				out = append(out, end.MemberOf(st))
			}
		}
	})
	if err == nil && len(out) == 0 {
		// Populated a moment ago, and its last processes are exiting.
		err = errors.New("cgroup: populated, but no live process is listed")
	}
	return out, err
}

// ErrNoPidfdInfo is returned by [Holder.Signal] when the kernel cannot
// show a process's cgroup through its pidfd (PIDFD_GET_INFO, Linux 6.13).
var ErrNoPidfdInfo = errors.New("cgroup: PIDFD_GET_INFO with PIDFD_INFO_CGROUPID unsupported (Linux 6.13)")

// signalIn signals pid through a pidfd, if the pidfd shows it in one of
// the cgroups ids and r has not reached it, and records it
// in r. Its group is read from /proc once the pidfd showed it ours; a
// wrong read (the process gone meanwhile) only leaves out a process the
// pidfd could not have signalled.
func signalIn(pid int, ids map[uint64]bool, sig syscall.Signal, r *end.Reached) error {
	fd, err := sys.PidfdOpen(pid)
	if err != nil {
		return err
	}
	defer sys.Close(fd)
	id, ok, err := sys.PidfdCgroupID(fd)
	if err != nil {
		if errors.Is(err, sys.ErrGone) {
			return sys.ErrGone
		}
		if errors.Is(err, syscall.ENOTTY) || errors.Is(err, syscall.EINVAL) {
			return ErrNoPidfdInfo
		}
		return fmt.Errorf("cgroup: %w", err)
	}
	if !ok || !ids[id] {
		return nil // not ours (any more): nothing is signalled on a guess
	}
	st, _ := proc.ReadStat(pid) // zero on an error: in no group
	if r.Has(pid, st.Pgrp) {
		return nil
	}
	err = sys.PidfdSignal(fd, sig)
	if err == nil {
		r.Process(pid)
	}
	return err
}

// walk calls visit with the id (the directory's inode number, which is
// the kernel's cgroup id) and the processes of the cgroup dirfd names and
// of each cgroup below it, to depth levels down.
func walk(dirfd, depth int, visit func(id uint64, procs []int)) error {
	st, err := sys.Fstat(dirfd)
	if err != nil {
		return fmt.Errorf("cgroup: %w", err)
	}
	procs, err := Procs(dirfd)
	if err != nil {
		return err
	}
	visit(st.Ino, procs)
	if depth == 0 {
		return nil
	}
	subs, err := subdirs(dirfd)
	if err != nil {
		return err
	}
	for _, sub := range subs {
		child, err := openDir(dirfd, sub)
		if err != nil {
			continue // removed in between
		}
		err = walk(child, depth-1, visit)
		sys.Close(child)
		if err != nil {
			return err
		}
	}
	return nil
}

// subdirs lists the directories in the cgroup dirfd names: the cgroups
// below it.
func subdirs(dirfd int) ([]string, error) {
	self, err := openDir(dirfd, ".")
	if err != nil {
		return nil, err
	}
	f := os.NewFile(uintptr(self), ".")
	defer f.Close()
	entries, _ := f.ReadDir(-1)
	var names []string
	for _, e := range entries {
		if e.IsDir() {
			names = append(names, e.Name())
		}
	}
	return names, nil
}
