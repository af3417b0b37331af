//go:build darwin || freebsd

package lineage

import (
	"errors"
	"os"
	"syscall"

	"github.com/session-starter/session-starter/internal/mark"
	"github.com/session-starter/session-starter/internal/proc"
	"github.com/session-starter/session-starter/internal/sys"
)

// System is this system's table: one read of every process (proc.All)
// for a snapshot, each as entry names it and with its parent as parents
// names it; with id, each reads its mark on demand ([Proc.Marked]).
func System(id *mark.ID) Table {
	return Table{
		Snapshot: func() ([]Proc, error) {
			all, err := proc.All()
			if err != nil {
				return nil, err
			}
			out := make([]Proc, 0, len(all))
			for _, e := range all {
				if p, ok := entry(e, id); ok {
					out = append(out, p)
				}
			}
			return parents(out), nil
		},
		Open: Open,
	}
}

// watched is a process opened by its exit watch (a kqueue NOTE_EXIT
// filter registered before it was read again): it is signalled by number
// only while the watch shows no exit.
type watched struct{ pid, fd int }

func (w watched) Signal(sig syscall.Signal) error { return sys.KillWatched(w.pid, w.fd, sig) }
func (w watched) Close()                          { sys.Close(w.fd) }

// Root reads the identity of pid, the Engine (the caller's unreaped
// child, so that the number names it alone): on macOS its unique id, on
// FreeBSD its PID and ki_start.
func Root(pid int) (Identity, error) {
	p, err := read(pid)
	return p.ID, err
}

// open registers the exit watch of pid, then reads it (read: the fresh
// read of the platform, taken after the watch). A read that fails once
// the watch shows the exit — a zombie's unique ids may no longer be read
// — is of a process gone.
func open(pid int, read func(pid int) (Proc, error)) (Handle, Proc, error) {
	fd, err := sys.WatchExit(pid)
	if err != nil {
		return nil, Proc{}, err
	}
	p, err := read(pid)
	if errors.Is(err, os.ErrNotExist) {
		err = sys.ErrGone // exited between the watch and the read
	}
	if err != nil && !errors.Is(err, sys.ErrGone) {
		if n, perr := sys.Poll([]sys.PollFd{{Fd: int32(fd), Events: sys.POLLIN}}, 0); perr == nil && n > 0 {
			err = sys.ErrGone
		}
	}
	if err != nil {
		sys.Close(fd)
		return nil, Proc{}, err
	}
	return watched{pid, fd}, p, nil
}
