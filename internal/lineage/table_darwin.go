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

// System is macOS's table: one read of kern.proc.all for a snapshot,
// proc_pidinfo PROC_PIDUNIQIDENTIFIERINFO for each process's unique id
// and its parent's; with id, the mark read from kern.procargs2 (argv
// skipped by its count), where macOS lets it be read.
func System(id *mark.ID) Table {
	return Table{
		Snapshot: func() ([]Proc, error) {
			all, err := proc.All()
			if err != nil {
				return nil, err
			}
			out := make([]Proc, 0, len(all))
			for _, e := range all {
				ids, err := sys.ProcUniqueIDs(e.PID)
				if err != nil {
					continue // gone, or not to be named: never signalled
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
				out = append(out, p)
			}
			return out, nil
		},
		Open: Open,
	}
}

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
