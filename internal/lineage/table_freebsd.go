package lineage

import (
	"github.com/session-starter/session-starter/internal/mark"
	"github.com/session-starter/session-starter/internal/proc"
)

// Token is the number that, with its PID, names id to a process that
// cannot read the Engine itself (the guard, once the starter that held
// it as its child is gone): its ki_start.
func Token(id Identity) uint64 { return id.Start }

// FromToken is the identity that pid and token ([Token]) name.
func FromToken(pid int, token uint64) Identity { return Identity{PID: pid, Start: token} }

// entry is FreeBSD's Proc of e, named by (PID, ki_start); with id, the
// mark read from kern.proc.env, where FreeBSD lets it be read.
func entry(e proc.Entry, id *mark.ID) (Proc, bool) {
	p := Proc{ID: Identity{PID: e.PID, Start: e.StartTime}, UID: e.UID, Stat: e.Stat}
	if id != nil {
		p.Marked = markedByStart(e.PID, e.StartTime, *id)
	}
	return p, true
}

// parents names each process's parent by its PPID, with that parent's
// ki_start from the same snapshot (a parent not in it, or started after
// the child, is not known).
func parents(ps []Proc) []Proc { return byPID(ps) }

// Open opens pid for a signal: it registers pid's exit watch, then reads
// its record ([Table.Open]).
func Open(pid int) (Handle, Proc, error) { return open(pid, read) }

// read reads pid's record.
func read(pid int) (Proc, error) {
	e, err := proc.ReadEntry(pid)
	if err != nil {
		return Proc{}, err
	}
	return Proc{ID: Identity{PID: pid, Start: e.StartTime}, UID: e.UID, Stat: e.Stat}, nil
}
