package starter

import (
	"time"

	"github.com/session-starter/session-starter/internal/end"
	"github.com/session-starter/session-starter/internal/sys"
)

// StatusStarted is the first record on the status descriptor, written
// when the Engine is released.
type StatusStarted struct {
	Event    string `json:"event"` // "started"
	PID      int    `json:"pid"`   // the Engine's PID
	PGID     int    `json:"pgid"`  // its process group: the same number
	Mode     string `json:"mode"`  // containment mode: "group" or "cgroup"
	GuardPID int    `json:"guard_pid"`
	Time     string `json:"time"` // RFC 3339 with nanoseconds
}

// StatusEnded is the last record on the status descriptor. Launchers
// must ignore fields they do not know; fields are only ever added.
type StatusEnded struct {
	Event  string `json:"event"`  // "ended"
	Reason string `json:"reason"` // engine-exit, signal NAME, parent-gone, control-closed, timeout, guard-lost, canceled, watch-failed, failed
	// Mode is the containment mode, once one was chosen.
	Mode string `json:"mode,omitempty"`
	// Executed reports whether the Engine's program was executed.
	Executed bool `json:"executed"`
	// ExitCode is the Engine's exit code, or null; Signal the name of the
	// signal it died of, or null.
	ExitCode   *int    `json:"exit_code"`
	Signal     *string `json:"signal"`
	CoreDumped bool    `json:"core_dumped,omitempty"`
	// Outcome of the session's end: empty, unconfirmed, survivors,
	// refused.
	Outcome string `json:"outcome,omitempty"`
	// MembersSeen is the largest number of live members one look at the
	// Engine's group or session cgroup found: a lower bound of what was
	// ended.
	MembersSeen int `json:"members_seen"`
	// EscapeesSeen counts the processes that had left the Engine's group
	// and were adopted and ended by the sweep (a lower bound).
	EscapeesSeen int        `json:"escapees_seen"`
	KillRounds   int        `json:"kill_rounds"`
	Graceful     bool       `json:"graceful"`
	Survivors    []Survivor `json:"survivors"`
	DurationMS   float64    `json:"duration_ms"`
	// GroupEndMS is how long the end took, every holder together.
	GroupEndMS float64     `json:"group_end_ms"`
	Starter    StarterExit `json:"starter"`
	// Report is the line session-starter wrote to stderr, if any.
	Report string `json:"report,omitempty"`
	Time   string `json:"time"`
}

// Survivor is a member left live after the kill budget.
type Survivor struct {
	PID   int    `json:"pid"`
	UID   int    `json:"uid"`
	State string `json:"state"`
	Comm  string `json:"comm"`
}

// StarterExit is how session-starter itself ends: exit_status, or death
// by signal (exit_status is then the 128+S fallback).
type StarterExit struct {
	ExitStatus int     `json:"exit_status"`
	Signal     *string `json:"signal"`
}

func now() string { return time.Now().Format(time.RFC3339Nano) }

// ended builds the last record from a result and, when Run failed, its
// error.
func ended(res Result, err error) StatusEnded {
	rec := StatusEnded{
		Event:       "ended",
		Reason:      res.Why(),
		Mode:        res.Mode,
		Executed:    res.Executed,
		MembersSeen: res.End.Members(),
		KillRounds:  res.End.Rounds,
		Graceful:    res.End.Graceful,
		Survivors:   []Survivor{},
		DurationMS:  float64(res.Duration) / float64(time.Millisecond),
		GroupEndMS:  float64(res.End.Elapsed) / float64(time.Millisecond),
		Time:        now(),
	}
	if res.End.Outcome != 0 {
		rec.Outcome = res.End.Outcome.String()
	}
	rec.EscapeesSeen = res.End.Seen[end.KindEscapees]
	for _, m := range res.End.Survivors {
		rec.Survivors = append(rec.Survivors, Survivor{PID: m.PID, UID: m.UID, State: string(m.State), Comm: m.Comm})
	}
	if res.Executed {
		if res.Engine.Exited {
			code := res.Engine.Code
			rec.ExitCode = &code
		} else {
			name := sys.SignalName(res.Engine.Signal)
			rec.Signal = &name
			rec.CoreDumped = res.Engine.CoreDumped
		}
	}
	var v Verdict
	if err != nil {
		if rec.Reason == "" {
			rec.Reason = "failed"
		}
		v = Verdict{Code: ExitCode(err), Report: err.Error()}
	} else {
		v = res.Verdict()
	}
	rec.Report = v.Report
	rec.Starter.ExitStatus = v.Code
	if v.Signal != 0 {
		name := sys.SignalName(v.Signal)
		rec.Starter.Signal = &name
	}
	return rec
}
