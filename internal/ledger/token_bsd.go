//go:build darwin || freebsd

package ledger

import (
	"errors"
	"fmt"

	"github.com/session-starter/session-starter/internal/lineage"
	"github.com/session-starter/session-starter/internal/sys"
)

// TokenOf returns pid's token: its identity as package internal/lineage
// reads it. Call it only for a process the PID is known to name (this
// process, an unreaped child of it).
func TokenOf(pid int) (Token, error) {
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

// errMismatch is open's error for a live process at the PID whose
// identity is not the token's: the PID was given to another process.
var errMismatch = errors.New("ledger: token-mismatch")

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

// Gone reports whether the process pid of token tok is shown gone: no
// live process has the PID, or the one that has it is of another
// identity (reused then: the PID was handed to a stranger, to be
// reported, never signalled). An error is that it cannot be told: never
// taken for gone, so that a reclaim cannot end a live session on a failed
// look.
func Gone(pid int, tok Token) (gone, reused bool, err error) {
	h, _, err := open(pid, tok)
	switch {
	case err == nil:
		h.Close()
		return false, false, nil
	case errors.Is(err, errMismatch):
		return true, true, nil
	case errors.Is(err, sys.ErrGone):
		return true, false, nil
	}
	return false, false, fmt.Errorf("ledger: pid %d: %w", pid, err)
}
