package ledger

import "github.com/session-starter/session-starter/starter/launch"

// The report of a reclaim, the same on every platform: the record
// package starter/launch reads (StatusReclaimed), which --reclaim writes.
type (
	// Problem is a file of the ledger that was not acted on.
	Problem = launch.LedgerProblem
	// Ended is a process Reclaim ended (or, dry, would end).
	Ended = launch.ReclaimedProcess
	// LeftProcess is a process Reclaim did not end, with the reason.
	LeftProcess = launch.LeftProcess
	// Session is what Reclaim did with one record.
	Session = launch.ReclaimedSession
)

// Report is what Reclaim found and did.
type Report launch.StatusReclaimed
