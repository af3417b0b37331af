//go:build darwin || freebsd || linux

package starter

import (
	"context"

	"github.com/session-starter/session-starter/internal/ledger"

	"github.com/session-starter/session-starter/starter/launch"
)

// Reclaim ends what the dead sessions of this user left behind — sessions
// whose starter and guard were SIGKILLed together (an OOM kill of the
// whole tree, a container stop) — as `session-starter --reclaim` does, and
// returns what it ended and what it left (the record --reclaim writes to
// --status-fd, [launch.StatusReclaimed]); with dryRun it ends nothing and
// lists what it would end. It reads this user's ledger of live sessions
// (the directory is $SESSION_STARTER_LEDGER_DIR; for root
// /run/session-starter, on macOS and FreeBSD /var/run/session-starter;
// $XDG_RUNTIME_DIR/session-starter; else /tmp/session-starter-UID), takes
// only the sessions whose starter and guard are both shown gone (no live
// process with the recorded identity token at their PIDs: a PID given to
// another process since does not count, and is reported), and for each
// ends the Engine the record names where its token matches, then on Linux
// every live process that carries the session's mark — read back off the
// live process and signalled through a pidfd of it — in passes until one
// finds nothing new, then its cgroup (cgroup.kill on the directory whose
// id the record names); on macOS and FreeBSD the Engine's descendants by
// lineage and the processes that carry the mark where it can be read
// (package internal/lineage's sweep, each read again right before its
// signal). It then removes the record. On Linux it acts only on a record
// of its own PID, cgroup and user namespaces: another namespace's numbers
// name other processes here, so such a record (and one of version 1,
// which names none) is reported, Action "other-namespace", and never
// signalled; one of a PID namespace in which nothing is left is removed,
// "namespace-gone" (the manual's "The ledger and --reclaim" says when).
// A process that cannot be
// verified is reported in Left with its reason and never signalled;
// another user's processes are never touched. A launcher can call it
// before it starts a session: with an empty ledger it reads the boot id
// and one directory, and signals nothing.
//
// ctx is looked at before each session: once it is done, Reclaim returns
// what it did so far with ctx's error. An error wrapping [ErrLedgerOff]
// means there is no ledger to read.
func Reclaim(ctx context.Context, dryRun bool) (launch.StatusReclaimed, error) {
	rep, err := ledger.Reclaim(ctx, dryRun)
	return reclaimed(rep), err
}

// reclaimed is the ledger's report as the public record, field for
// field.
func reclaimed(rep ledger.Report) launch.StatusReclaimed {
	out := launch.StatusReclaimed{Event: rep.Event, Dir: rep.Dir, DryRun: rep.DryRun,
		Sessions: make([]launch.ReclaimedSession, 0, len(rep.Sessions)), Problems: make([]launch.LedgerProblem, 0, len(rep.Problems))}
	for _, s := range rep.Sessions {
		rs := launch.ReclaimedSession{Session: s.Session, Action: s.Action, Cgroup: s.Cgroup, GuardEnd: s.GuardEnd, Containers: s.Containers,
			Ended: make([]launch.ReclaimedProcess, 0, len(s.Ended)), Left: make([]launch.LeftProcess, 0, len(s.Left))}
		for _, e := range s.Ended {
			rs.Ended = append(rs.Ended, launch.ReclaimedProcess{PID: e.PID, Comm: e.Comm})
		}
		for _, l := range s.Left {
			rs.Left = append(rs.Left, launch.LeftProcess{PID: l.PID, Reason: l.Reason, Survivor: l.Survivor})
		}
		out.Sessions = append(out.Sessions, rs)
	}
	for _, p := range rep.Problems {
		out.Problems = append(out.Problems, launch.LedgerProblem{File: p.File, Reason: p.Reason})
	}
	return out
}
