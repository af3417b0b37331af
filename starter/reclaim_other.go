//go:build !linux && !darwin && !freebsd

package starter

import (
	"context"
	"fmt"
	"runtime"

	"github.com/session-starter/session-starter/starter/launch"
)

// Reclaim returns an error wrapping [ErrLedgerOff]: no ledger of sessions
// is kept here, and nothing is looked at. On Windows nothing needs
// reclaiming: a session's job kills its processes when its last handle
// closes.
func Reclaim(ctx context.Context, dryRun bool) (launch.StatusReclaimed, error) {
	return launch.StatusReclaimed{}, fmt.Errorf("%w: no ledger on %s", ErrLedgerOff, runtime.GOOS)
}
