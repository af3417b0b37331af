package starter

import "github.com/session-starter/session-starter/internal/ledger"

// ErrLedgerOff is wrapped by Reclaim's error when there is no ledger: no
// directory passes the checks, or the platform keeps none.
var ErrLedgerOff = ledger.ErrOff
