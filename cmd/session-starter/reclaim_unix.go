//go:build darwin || freebsd || linux

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/session-starter/session-starter/internal/ledger"
	"github.com/session-starter/session-starter/internal/wire"
	"github.com/session-starter/session-starter/starter"
)

// reclaim is --reclaim: ledger.Reclaim, its report printed on stdout, one
// line a session, and written as one JSON record to --status-fd (the
// record launch.StatusReclaimed reads, field for field). A
// reclaim that failed (the ledger off, its directory unreadable) writes
// no record, only its reason on stderr: a launcher reads no record as the
// failure it is, never a partial one as a report. It exits 125 then, and
// when a process verified as a session's is left (a survivor); a PID
// given to a stranger, a refused file or a process that could not be
// verified is printed, and is no survivor.
func reclaim(inv *invocation, stdout, stderr io.Writer) starter.Verdict {
	rep, err := ledger.Reclaim(context.Background(), inv.dryRun)
	writeStatus(inv.opts.StatusFD, rep, err == nil)
	if err != nil {
		fmt.Fprintf(stderr, "session-starter: reclaim: %v\n", err)
		return starter.Verdict{Code: wire.ExitContainment}
	}
	code := 0
	for _, p := range rep.Problems {
		fmt.Fprintf(stdout, "refused %s: %s\n", p.File, p.Reason)
	}
	for _, s := range rep.Sessions {
		var ended, left []string
		for _, e := range s.Ended {
			ended = append(ended, strings.TrimSpace(fmt.Sprintf("%d %s", e.PID, e.Comm)))
		}
		for _, l := range s.Left {
			left = append(left, strings.TrimSpace(fmt.Sprintf("%d %s", l.PID, l.Reason)))
			if l.Survivor {
				code = wire.ExitContainment
			}
		}
		guard := ""
		if s.GuardEnd != "" {
			guard = "; its guard's end: " + s.GuardEnd
		}
		fmt.Fprintf(stdout, "session %s: %s; ended %d%s; left %d%s%s\n", s.Session, s.Action,
			len(s.Ended), listed(ended), len(s.Left), listed(left), guard)
	}
	if len(rep.Sessions) == 0 && len(rep.Problems) == 0 {
		fmt.Fprintf(stdout, "no dead session in %s\n", rep.Dir)
	}
	return starter.Verdict{Code: code}
}

func listed(items []string) string {
	if len(items) == 0 {
		return ""
	}
	return " (" + strings.Join(items, ", ") + ")"
}

// writeStatus writes rec as one JSON line to the status descriptor fd
// (0: none) when write is set, and closes fd either way: --reclaim and
// --end-released write their one record so.
func writeStatus(fd int, rec any, write bool) {
	if fd <= 0 {
		return
	}
	f := os.NewFile(uintptr(fd), "status")
	if b, err := json.Marshal(rec); err == nil && write {
		_, _ = f.Write(append(b, '\n'))
	}
	_ = f.Close()
}
