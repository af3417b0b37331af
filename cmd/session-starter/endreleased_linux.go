//go:build linux && !portable

package main

import (
	"fmt"
	"io"
	"os"

	"github.com/session-starter/session-starter/internal/end"
	"github.com/session-starter/session-starter/internal/mark"
	"github.com/session-starter/session-starter/internal/wire"
	"github.com/session-starter/session-starter/starter"
	"github.com/session-starter/session-starter/starter/launch"
)

// endedReleased is the JSON record --end-released writes to --status-fd.
type endedReleased struct {
	Event   string `json:"event"` // "ended-released"
	Session string `json:"session"`
	// Found is how many marked processes the first look found.
	Found int   `json:"found"`
	Left  []int `json:"left"` // the PIDs still live at the end
}

// endReleased is --end-released: it ends this user's processes whose
// mark carries the call's id, as the enclosing session's end would. Each
// look scans /proc again, so what they fork meanwhile is found; each
// signal goes through a pidfd of a process just verified. It prints one
// line, writes one JSON record to --status-fd, and exits 0 when none is
// left, 125 when some are.
func endReleased(inv *invocation, stdout, stderr io.Writer) starter.Verdict {
	id, _ := mark.Parse(inv.endReleased) // parse checked it
	self := os.Getpid()
	h := &mark.Holder{ID: id, UID: os.Getuid(), Skip: func(pid int) bool { return pid == self }}
	found, err := h.Live()
	if err != nil {
		fmt.Fprintf(stderr, "session-starter: --end-released: %v\n", err)
		return starter.Verdict{Code: wire.ExitContainment}
	}
	o := inv.opts
	rep := end.End([]end.Holder{h}, end.Plan{Stop: o.StopSignal, Grace: o.Grace, Budget: o.KillBudget})
	rec := endedReleased{Event: "ended-released", Session: inv.endReleased, Found: len(found), Left: []int{}}
	for _, m := range rep.Survivors {
		rec.Left = append(rec.Left, m.PID)
	}
	writeStatus(o.StatusFD, rec, true)
	if rep.Outcome == launch.Empty || rep.Outcome == launch.Unconfirmed {
		fmt.Fprintf(stdout, "session %s: ended; found %d\n", inv.endReleased, rec.Found)
		return starter.Verdict{}
	}
	fmt.Fprintf(stdout, "session %s: found %d; left %d\n", inv.endReleased, rec.Found, len(rec.Left))
	fmt.Fprintf(stderr, "session-starter: --end-released: %s\n", rep.Describe())
	return starter.Verdict{Code: wire.ExitContainment}
}
