package end

import (
	"slices"
	"syscall"
)

// Reached records what one signal has reached in one phase of an end —
// the grace's stop signal and its SIGCONT for the whole grace, SIGKILL
// for one round — so that a holder that implements [OnceHolder] leaves
// those processes out: each live process is sent the grace's stop signal
// once, not once per holder it belongs to (the Engine is a member of
// group E and of the session cgroup too). A process is reached when a
// group it is a member of was signalled as a whole, or when it was
// signalled alone.
//
// A number it holds may be handed out again within the phase; the new
// process is then left out of that signal, never sent one it should not
// get: it still gets the SIGKILL rounds.
type Reached struct {
	groups []int
	pids   map[int]bool
}

// NewReached returns an empty record.
func NewReached() *Reached { return &Reached{pids: map[int]bool{}} }

// Group records that the process group pgid was signalled as a whole.
func (r *Reached) Group(pgid int) { r.groups = append(r.groups, pgid) }

// Process records that the process pid was signalled alone.
func (r *Reached) Process(pid int) { r.pids[pid] = true }

// Has reports whether the process pid, a member of group pgrp, was
// reached: signalled alone, or as a member of its group.
func (r *Reached) Has(pid, pgrp int) bool {
	return r.pids[pid] || slices.Contains(r.groups, pgrp)
}

// HasGroup reports whether the group pgid was signalled as a whole.
func (r *Reached) HasGroup(pgid int) bool { return slices.Contains(r.groups, pgid) }

// OnceHolder is a [Holder] that can leave out what a signal reached
// already in this phase of the end. SignalOnce is Signal, less the
// processes r has, and it records in r what it reached; its errors are
// Signal's. [End] uses it where a holder has it: every holder of this
// package, the session cgroup's and the starter's adopted escapees do.
type OnceHolder interface {
	Holder
	SignalOnce(sig syscall.Signal, r *Reached) error
}
