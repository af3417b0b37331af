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
		Survivors:   []launch.Survivor{},
		DurationMS:  float64(res.Duration) / float64(time.Millisecond),
		GroupEndMS:  float64(res.End.Elapsed) / float64(time.Millisecond),
		Time:        now(),
	}
	if res.End.Outcome != 0 {
		rec.Outcome = res.End.Outcome.String()
	}
	rec.EscapeesSeen = res.End.EscapeesSeen
	rec.Released = res.End.Released
	for _, m := range res.End.Survivors {
		rec.Survivors = append(rec.Survivors, launch.Survivor{PID: m.PID, UID: m.UID, State: m.State, Comm: m.Comm, Denied: m.Denied})
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
	if err != nil && rec.Reason == "" {
		rec.Reason = "failed"
	}
	rec.OOMKills = res.Usage.OOMKills
	rec.Usage = usageRecord(res.Usage)
	v := res.Verdict(err)
	rec.Report = v.Report
	rec.Starter.ExitStatus = v.Code
	if v.Signal != 0 {
		name := sys.SignalName(v.Signal)
		rec.Starter.Signal = &name
	}
	return rec
}

// usageRecord is u as the ended record carries it, or nil when u has no
// figure.
func usageRecord(u Usage) *launch.Usage {
	r := launch.Usage{MemoryPeakBytes: u.MemoryPeak, TasksPeak: u.TasksPeak, ForksRefused: u.ForksRefused}
	if u.CPU != nil {
		ms := float64(*u.CPU) / float64(time.Millisecond)
		r.CPUMS, r.CPUSource = &ms, u.CPUSource
	}
	if u.MemoryPeak != nil {
		r.MemoryPeakSource = u.MemoryPeakSource
	}
	if u.TasksPeak != nil {
		r.TasksPeakSource = "pids.peak"
	}
	if r == (launch.Usage{}) {
		return nil
	}
	return &r
}
