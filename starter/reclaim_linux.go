package starter

import (
	"context"

	"github.com/session-starter/session-starter/internal/ledger"
)

// Reclaim ends what the dead sessions of this user left behind — sessions
// whose starter and guard were SIGKILLed together (an OOM kill of the
// whole tree, a container stop) — as `session-starter --reclaim` does, and
// returns what it ended and what it left; with dryRun it ends nothing and
// lists what it would end. It reads this user's ledger of live sessions
// (the directory is $SESSION_STARTER_LEDGER_DIR, /run/session-starter for
// root, $XDG_RUNTIME_DIR/session-starter, else /tmp/session-starter-UID),
// takes only the sessions whose starter and guard are both shown gone (no
// live process with the recorded identity token at their PIDs: a PID
// given to another process since does not count), and for each ends every
// live process that carries the session's mark — read back off the live
// process and signalled through a pidfd of it — in passes until one finds
// nothing new, then its cgroup (cgroup.kill on the directory whose id the
// record names), and removes the record. A process that cannot be
// verified is reported in Left with its reason and never signalled;
// another user's processes are never touched. A launcher can call it
// before it starts a session: with an empty ledger it reads the boot id
// and one directory, and signals nothing.
//
// ctx is looked at before each session: once it is done, Reclaim returns
// what it did so far with ctx's error. An error wrapping [ErrLedgerOff]
// means there is no ledger to read.
func Reclaim(ctx context.Context, dryRun bool) (ReclaimReport, error) {
	return ledger.Reclaim(ctx, dryRun)
}
