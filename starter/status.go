package starter

import (
	"time"

	"github.com/session-starter/session-starter/internal/sys"
	"github.com/session-starter/session-starter/starter/launch"
)

func now() string { return time.Now().Format(time.RFC3339Nano) }

// ended builds the last record from a result and, when Run failed, its
// error.
func ended(res Result, err error) launch.StatusEnded {
	rec := launch.StatusEnded{
		Event:       "ended",
		Reason:      res.Why(),
		Mode:        res.Mode,
		Executed:    res.Executed,
		MembersSeen: res.End.MembersSeen,
		KillRounds:  res.End.Rounds,
		Graceful:    res.End.Graceful,
		Survivors:   append([]launch.Survivor{}, res.End.Survivors...),
		DurationMS:  float64(res.Duration) / float64(time.Millisecond),
		GroupEndMS:  float64(res.End.Elapsed) / float64(time.Millisecond),
		Time:        now(),
	}
	if res.End.Outcome != 0 {
		rec.Outcome = res.End.Outcome.String()
	}
	rec.EscapeesSeen = res.End.EscapeesSeen
	rec.Released = res.End.Released
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
	if err != nil && rec.Reason == "" {
		rec.Reason = "failed"
	}
	u := res.Usage
	rec.OOMKills, u.OOMKills = u.OOMKills, nil
	if u != (launch.Usage{}) {
		rec.Usage = &u
	}
	v := res.Verdict(err)
	rec.Report = v.Report
	rec.Starter.ExitStatus = v.Code
	if v.Signal != 0 {
		name := sys.SignalName(v.Signal)
		rec.Starter.Signal = &name
	}
	return rec
}
