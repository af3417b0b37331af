//go:build darwin || freebsd

package ledger

import (
	"github.com/session-starter/session-starter/internal/lineage"
	"github.com/session-starter/session-starter/internal/sys"
)

// TokenOfPidfd returns pid's token: its identity as package
// internal/lineage reads it (the descriptor is not used). Call it only
// for a process the PID is known to name (this process, an unreaped
// child of it).
func TokenOfPidfd(pid, _ int) (Token, error) {
	id, err := lineage.Root(pid)
	if err != nil {
		return Token{}, err
	}
	return Token{Start: id.Start, Unique: id.Unique}, nil
}

// identity is the process tok names at pid.
func (tok Token) identity(pid int) lineage.Identity {
	return lineage.Identity{PID: pid, Start: tok.Start, Unique: tok.Unique}
}

// open opens pid for a signal when it names the live process of token
// tok: its exit watch registered first, then its identity read again and
// compared (lineage.Open), so that the comparison was of the process the
// watch names, which is signalled only while the watch shows no exit.
// The error is errMismatch for a live process of another identity, and
// wraps sys.ErrGone when no live process has pid (none at all, or a
// zombie); any other is that it cannot be told, and wraps neither.
func open(pid int, tok Token) (lineage.Handle, lineage.Proc, error) {
	h, live, err := lineage.Open(pid)
	if err != nil {
		return nil, lineage.Proc{}, err
	}
	switch {
	case !live.Stat.Live():
		err = sys.ErrGone
	case !live.ID.Is(tok.identity(pid)):
		err = errMismatch
	}
	if err != nil {
		h.Close()
		return nil, lineage.Proc{}, err
	}
	return h, live, nil
}

// look is open's verdict alone: nil for the live process of tok.
func look(pid int, tok Token) error {
	h, _, err := open(pid, tok)
	if err == nil {
		h.Close()
	}
	return err
}
