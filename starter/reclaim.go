package starter

import "github.com/session-starter/session-starter/internal/ledger"

// The report of [Reclaim], the JSON record that `session-starter --reclaim
// --status-fd N` writes ("event": "reclaimed"):
//
//   - ReclaimReport: Dir, the ledger's directory; DryRun; Sessions, one a
//     record; Problems, the files of the ledger refused (torn, another
//     user's, open to others), none acted on; Total counts the processes
//     ended and left.
//   - ReclaimedSession: Session, the session's id in the mark; Action —
//     "reclaimed" (what was left ended, the record removed), "live" (its
//     starter or guard lives: left alone), "other-boot" (dropped, nothing
//     signalled), "would-reclaim" (a dry run); CgroupEnded; Ended; Left.
//   - ReclaimedProcess: PID and Comm of a process ended (dry: to end).
//   - LeftProcess: PID (0 for the session as a whole) and Reason of what
//     was not signalled: "mark-unreadable", "other-uid", "token-mismatch",
//     "platform", or what failed.
//   - ReclaimProblem: File and Reason.
type (
	ReclaimReport    = ledger.Report
	ReclaimedSession = ledger.Session
	ReclaimedProcess = ledger.Ended
	LeftProcess      = ledger.LeftProcess
	ReclaimProblem   = ledger.Problem
)

// ErrLedgerOff is wrapped by Reclaim's error when there is no ledger: no
// directory passes the checks, or the platform keeps none.
var ErrLedgerOff = ledger.ErrOff
