package lineage

import (
	"syscall"

	"github.com/session-starter/session-starter/internal/mark"
	"github.com/session-starter/session-starter/internal/proc"
	"github.com/session-starter/session-starter/internal/sys"
)

// Token is the number that, with its PID, names id to a process that
// cannot read the Engine itself (the guard, once the starter that held
// it as its child is gone): its unique id, by which macOS identities are
// compared and ordered.
func Token(id Identity) uint64 { return id.Unique }

// FromToken is the identity that pid and token ([Token]) name.
func FromToken(pid int, token uint64) Identity { return Identity{PID: pid, Unique: token} }

// entry is macOS's Proc of e: its unique id and its parent's from
// proc_pidinfo PROC_PIDUNIQIDENTIFIERINFO; with id, the mark read from
// kern.procargs2 (argv skipped by its count), where macOS lets it be
// read. A process whose ids cannot be read is left out: gone, or not to
// be named, it is never signalled.
func entry(e proc.Entry, id *mark.ID) (Proc, bool) {
	ids, err := sys.ProcUniqueIDs(e.PID)
	if err != nil {
		return Proc{}, false
	}
	p := Proc{ID: Identity{PID: e.PID, Start: e.StartTime, Unique: ids.Unique}, Parent: Identity{Unique: ids.Parent}, UID: e.UID, Stat: e.Stat}
	if id != nil {
		p.Marked = func() (bool, bool) {
			return carries(e.PID, *id, func() bool {
				again, err := sys.ProcUniqueIDs(e.PID)
				return err == nil && again.Unique == ids.Unique
			})
		}
	}
	return p, true
}

// parents is the snapshot as it is: each process names its parent by
// unique id already.
func parents(ps []Proc) []Proc { return ps }

// identified is a process opened by its exit watch, with the PID version
// read after the watch: signalled through the kernel's check of that
// version where macOS has it (sys.SignalIdentified).
type identified struct {
	watched
	version int32
}

func (p identified) Signal(sig syscall.Signal) error {
	return sys.SignalIdentified(p.pid, p.version, p.fd, sig)
}

// Open opens pid for a signal: it registers pid's exit watch, then reads
// its unique ids (with its PID version) and record ([Table.Open]).
func Open(pid int) (Handle, Proc, error) {
	var version int32
	h, p, err := open(pid, func(pid int) (p Proc, err error) {
		p, version, err = readVersion(pid)
		return p, err
	})
	if err != nil {
		return nil, Proc{}, err
	}
	return identified{h.(watched), version}, p, nil
}

// read reads pid's record and unique ids.
func read(pid int) (Proc, error) {
	p, _, err := readVersion(pid)
	return p, err
}

// readVersion reads pid's unique ids, then its record, and returns them
// with the PID version read with the ids.
func readVersion(pid int) (Proc, int32, error) {
	ids, err := sys.ProcUniqueIDs(pid)
	if err != nil {
		return Proc{}, 0, err
	}
	e, err := proc.ReadEntry(pid)
	if err != nil {
		return Proc{}, 0, err
	}
	return Proc{ID: Identity{PID: pid, Start: e.StartTime, Unique: ids.Unique}, Parent: Identity{Unique: ids.Parent}, UID: e.UID, Stat: e.Stat}, ids.Version, nil
}
