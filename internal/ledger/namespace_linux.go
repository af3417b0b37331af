package ledger

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"slices"
	"syscall"

	"github.com/session-starter/session-starter/internal/proc"
	"github.com/session-starter/session-starter/internal/sys"
)

// Namespaces names what the numbers of a record are relative to (by
// their nsfs inode numbers): the PIDs to the PID namespace, the cgroup's
// path to the cgroup namespace, the uid to the user namespace.
type Namespaces struct {
	PID    PIDNamespace `json:"pid"`
	Cgroup uint64       `json:"cgroup"`
	User   uint64       `json:"user"`
}

// PIDNamespace is one PID namespace: its inode number, which a later
// namespace may get once this one is gone, and the token of its PID 1,
// which is another process in that later one.
type PIDNamespace struct {
	Inode uint64 `json:"inode"`
	Init  Token  `json:"init"`
}

// Here returns this process's namespaces, for its record.
func Here() (*Namespaces, error) {
	var ns Namespaces
	for _, n := range []struct {
		name string
		to   *uint64
	}{{"pid", &ns.PID.Inode}, {"cgroup", &ns.Cgroup}, {"user", &ns.User}} {
		var st syscall.Stat_t
		if err := syscall.Stat("/proc/self/ns/"+n.name, &st); err != nil {
			return nil, fmt.Errorf("ledger: %s namespace: %w", n.name, err)
		}
		*n.to = st.Ino
	}
	init, err := TokenOf(1)
	if err != nil {
		// /proc/1 hidden (hidepid): the pidfs inode alone names it.
		if ino := inodeOf(1, -1); ino != 0 {
			init, err = Token{Pidfs: ino}, nil
		}
	}
	if err != nil {
		return nil, fmt.Errorf("ledger: the PID namespace's init: %w", err)
	}
	ns.PID.Init = init
	return &ns, nil
}

// whereIs tells whether r, a record in the directory of the descriptor
// dir, is of the namespaces here, and why not (the reason, for Left).
//
// A record of this PID namespace's inode number whose recorded init is
// gone is of an earlier namespace that number named: gone. A PID
// namespace whose init is seen alive from here is a descendant of this
// one (no other's processes are seen); the record then notes this one
// in SeenFrom (not when dry). Once noted, an init no longer seen from
// here is dead, and the kernel kills every process of a PID namespace
// whose init dies: gone. A namespace never seen from here cannot be told
// from one that cannot be seen from here (a sibling's): other, kept. What
// cannot be told is other.
func whereIs(dir int, r Record, here *Namespaces, dry bool) (int, string) {
	switch {
	case r.NS == nil:
		return nsOther, fmt.Sprintf("version %d record: names no namespace", r.Version)
	case r.NS.PID.Inode == here.PID.Inode:
		gone, _, err := Gone(1, r.NS.PID.Init)
		switch {
		case err != nil:
			return nsOther, "unverifiable: the PID namespace's init: " + err.Error()
		case gone:
			return nsGone, ""
		case r.NS.Cgroup != here.Cgroup:
			return nsOther, "cgroup namespace"
		case r.NS.User != here.User:
			return nsOther, "user namespace"
		}
		return nsOwn, ""
	}
	lives, err := initLives(r.NS.PID.Init)
	seen := slices.Contains(r.SeenFrom, here.PID)
	switch {
	case err != nil:
		return nsOther, "unverifiable: the PID namespace's init: " + err.Error()
	case !lives && seen:
		return nsGone, ""
	case !lives:
		return nsOther, "pid namespace"
	case !seen && !dry:
		_ = noteSeen(dir, r.Session, here.PID) // a note lost is one more look later
	}
	return nsOther, "pid namespace (a descendant's)"
}

// noteSeen adds ns to SeenFrom in the record name of the directory dir,
// as a compare-and-swap: the new record, written to a temporary file, is
// exchanged with the one read (renameat2 RENAME_EXCHANGE); had that
// changed meanwhile (the guard's NoteEnd), it is exchanged back. A record
// removed meanwhile stays removed.
func noteSeen(dir int, session string, ns PIDNamespace) error {
	name := FileName(session)
	r, before, err := readAt(dir, name)
	if err != nil {
		return err
	}
	r.SeenFrom = append(r.SeenFrom, ns)
	tmp, err := writeTemp(dir, r)
	if err != nil {
		return err
	}
	defer sys.Unlinkat(dir, tmp, 0)
	if err := sys.Exchangeat(dir, tmp, name); err != nil {
		return err
	}
	if _, old, err := readAt(dir, tmp); err != nil || !bytes.Equal(old, before) {
		return sys.Exchangeat(dir, tmp, name)
	}
	return nil
}

// initLives reports whether a live process here has token tok, the
// recorded init of a descendant PID namespace, whose number here is not
// known: every process is compared. With a pidfs inode the comparison is
// by it alone (the start read here may be shifted by a time namespace);
// without, the start picks the candidates. A process that cannot be told
// is an error: never taken for gone.
func initLives(tok Token) (bool, error) {
	pids, err := proc.PIDs()
	if err != nil {
		return false, err
	}
	self := os.Getpid()
	for _, pid := range pids {
		if pid == self {
			continue
		}
		if tok.Pidfs == 0 {
			st, err := proc.ReadStat(pid)
			if err != nil || st.StartTime != tok.Start {
				continue
			}
		}
		switch err := look(pid, tok); {
		case err == nil:
			return true, nil
		case errors.Is(err, errMismatch), errors.Is(err, sys.ErrGone):
		default:
			return false, fmt.Errorf("pid %d: %w", pid, err)
		}
	}
	return false, nil
}
