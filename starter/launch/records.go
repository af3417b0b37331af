package launch

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"
)

// This file is the wire format a launcher reads: the ack line on
// session-starter's stdout and the status records on its --status-fd.

// ackPrefix is how the ack line begins: session_containment is its first
// key, and 1 the only value defined.
const ackPrefix = `{"session_containment":1,`

// ParseAck checks an ack line (its newline optional) and returns the
// Engine's PID and the containment mode. The line must be one JSON object
// whose first key is session_containment with the value 1, with an
// integer pid > 1 and a non-empty string mode; other keys are ignored. On
// error the results are zero.
func ParseAck(line []byte) (pid int, mode string, err error) {
	line = bytes.TrimSuffix(line, []byte("\n"))
	if !bytes.HasPrefix(line, []byte(ackPrefix)) || bytes.IndexByte(line, '\n') >= 0 {
		return 0, "", fmt.Errorf("%q is not one line beginning with %s", truncate(line), ackPrefix)
	}
	var a struct {
		Version *int    `json:"session_containment"`
		PID     *int    `json:"pid"`
		Mode    *string `json:"mode"`
	}
	if err := json.Unmarshal(line, &a); err != nil {
		return 0, "", fmt.Errorf("%q: %v", truncate(line), err)
	}
	switch {
	case a.Version == nil || *a.Version != 1:
		return 0, "", fmt.Errorf("%q: session_containment is not 1", truncate(line))
	case a.PID == nil || *a.PID <= 1:
		return 0, "", fmt.Errorf("%q: no pid > 1", truncate(line))
	case a.Mode == nil || *a.Mode == "":
		return 0, "", fmt.Errorf("%q: no mode", truncate(line))
	}
	return *a.PID, *a.Mode, nil
}

// StatusStarted is the first record on the status descriptor, written
// when the Engine is released.
type StatusStarted struct {
	Event    string `json:"event"` // "started"
	PID      int    `json:"pid"`   // the Engine's PID
	PGID     int    `json:"pgid"`  // its process group: the same number
	Mode     string `json:"mode"`  // containment mode: "group" or "cgroup"
	GuardPID int    `json:"guard_pid"`
	Time     string `json:"time"` // RFC 3339 with nanoseconds
	// Session is the session's id in the session mark ([SessionVar]),
	// absent when the mark is off.
	Session string `json:"session,omitempty"`
	// Argv is the Engine's command line as run, present only when
	// session-starter changed it: with --containers, the label it added.
	Argv []string `json:"argv,omitempty"`
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
	// refused, released.
	Outcome string `json:"outcome,omitempty"`
	// Released lists, with outcome released (--release-on-exit), the
	// processes the Engine left running, which stay.
	Released []int `json:"released,omitempty"`
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
	// OOMKills counts the processes of the session the kernel's OOM
	// killer ended (memory.events' oom_kill of the session cgroup):
	// present in cgroup mode where the memory controller is enabled for
	// it. The reason stays what it was (an OOM-killed Engine is an
	// engine-exit by SIGKILL).
	OOMKills *int64 `json:"oom_kills,omitempty"`
	// Usage is what the session's tree used, exited processes included;
	// absent when there is no figure at all. Its OOMKills is nil: the
	// record carries that figure above, as OOMKills.
	Usage *Usage `json:"usage,omitempty"`
}

// Limits bound a tree, every process of it whether it left its group or
// not: a session's (its session cgroup on Linux, its job on Windows) or
// a call's (its own cgroup or job). The kernel enforces them; a zero
// field sets no bound. Asked for where they cannot be enforced, they fail
// the start with nothing executed: a limit is never silently not applied.
type Limits struct {
	// MaxTasks is pids.max: the most tasks the tree may have live at
	// once, threads included (a Go or Node program runs several). A fork
	// or a thread's creation beyond it fails with EAGAIN. On Windows it
	// bounds the job's processes (ActiveProcessLimit).
	MaxTasks int
	// MaxMemory is memory.max in bytes: the tree's memory, page cache
	// included; beyond it the kernel reclaims, and then its OOM killer
	// ends a process of the tree (reported: [Usage] OOMKills). With it,
	// MaxSwap is memory.swap.max, 0 meaning no swap at all. On Windows it
	// bounds the memory the job's processes commit (JobMemoryLimit), and
	// there is no swap bound.
	MaxMemory, MaxSwap int64
	// MaxCPU is cpu.max in CPUs: 0.5 is half of one CPU's time, 2 two
	// CPUs' — over each 100 ms period, the tree as a whole. On Windows it
	// is a hard cap of the job's CPU rate.
	MaxCPU float64
	// Calls names the kinds of limit — "tasks", "memory", "cpu" — a
	// session's contained calls may set for themselves (package
	// starter/contain, Cmd.Limits), each in its own cgroup. It bounds
	// nothing: it makes their controllers (pids, memory, cpu) available
	// to the session cgroup as the session's own limits would. Where a
	// session limit needs the controller already, it is not needed.
	// Windows needs none of it — a call's job takes limits of its own —
	// and takes it as asked; elsewhere without cgroups it fails as a
	// limit does. It is a session's: a call's Limits refuse it.
	Calls []string
}

// Any reports whether l sets a bound (Calls sets none).
func (l Limits) Any() bool { return l.MaxTasks > 0 || l.MaxMemory > 0 || l.MaxCPU > 0 }

// Usage is what a session's or a call's tree used, exited processes
// included, each figure with where it was read. A nil figure is one this
// platform or mode has no counter for: absent, never guessed.
type Usage struct {
	// CPUMS is the CPU time of the whole tree, user and system, in
	// milliseconds; CPUSource is where it was read: "cpu.stat" (cgroup
	// mode: the cgroup's usage_usec), "rusage" (group mode: the sum of
	// the reaps of the Engine and of the orphans session-starter adopted,
	// without the processes reaped by others; a lower bound), "job"
	// (Windows: every process the job held).
	CPUMS     *float64 `json:"cpu_ms,omitempty"`
	CPUSource string   `json:"cpu_source,omitempty"`
	// MemoryPeakBytes is the tree's peak memory, page cache included;
	// MemoryPeakSource is "memory.peak" (cgroup mode with the memory
	// controller, Linux 5.19) or "job" (Windows: the peak its processes
	// committed together).
	MemoryPeakBytes  *int64 `json:"memory_peak_bytes,omitempty"`
	MemoryPeakSource string `json:"memory_peak_source,omitempty"`
	// TasksPeak is the most tasks the tree had live at once, threads
	// included; TasksPeakSource is "pids.peak" (cgroup mode with the pids
	// controller, Linux 6.1).
	TasksPeak       *int64 `json:"tasks_peak,omitempty"`
	TasksPeakSource string `json:"tasks_peak_source,omitempty"`
	// OOMKills counts the processes of the tree the kernel's OOM killer
	// ended (memory.events' oom_kill, cgroup mode with the memory
	// controller). The ended record has it above its usage, as
	// [StatusEnded] OOMKills; its JSON here is none.
	OOMKills *int64 `json:"-"`
	// ForksRefused counts the forks refused because pids.max was reached
	// (--max-tasks; pids.events' max, cgroup mode with the pids
	// controller).
	ForksRefused *int64 `json:"forks_refused,omitempty"`
}

// SetCPU sets the CPU figure: d, in milliseconds, read from source.
func (u *Usage) SetCPU(d time.Duration, source string) {
	ms := float64(d) / float64(time.Millisecond)
	u.CPUMS, u.CPUSource = &ms, source
}

// Survivor is a process left live at the end's deadline, after the kill
// budget.
type Survivor struct {
	PID int `json:"pid"`
	// UID is its real user ID, or -1 when it could not be read.
	UID int `json:"uid"`
	// State is its state as /proc/PID/stat shows it ("R", "S", "D", "T",
	// …); "R" where the platform cannot tell (Windows).
	State string `json:"state"`
	// Comm is its command name.
	Comm string `json:"comm"`
	// Denied: session-starter could not signal it. It does not run as
	// root, and the survivor belongs to another user.
	Denied bool `json:"denied"`
}

// Outcome is how the end of a session or a call came out, for every
// holder together (the Engine, its group, the processes that left it, the
// cgroup; on Windows the job). The zero value means no end was needed:
// nothing had been started. [StatusEnded] carries it as its String.
type Outcome int

// The outcomes of an end. Empty, Unconfirmed and Released let
// session-starter mirror the Engine's status; Survivors and Refused make
// it exit 125.
const (
	// Empty: no holder has a live process, and each has shown it.
	Empty Outcome = iota + 1
	// Unconfirmed: the holders were signalled, but the end of at least
	// one could not be observed by the deadline.
	Unconfirmed
	// Survivors: live processes were left at the deadline.
	Survivors
	// Refused: signalling a holder was not safe, so it was not signalled.
	Refused
	// Released: the Engine exited on its own under --release-on-exit, and
	// nothing was signalled: what it left stays, inside the enclosing
	// session. It mirrors the Engine's status. The end itself never
	// returns Released: the session reports it without an end.
	Released
)

// outcomeNames are the outcomes as the status record and the logs name
// them.
var outcomeNames = [...]string{Empty: "empty", Unconfirmed: "unconfirmed", Survivors: "survivors", Refused: "refused", Released: "released"}

// String is the outcome as the status record and the logs name it:
// "empty", "unconfirmed", "survivors", "refused", "released".
func (o Outcome) String() string {
	if o > 0 && int(o) < len(outcomeNames) {
		return outcomeNames[o]
	}
	return fmt.Sprintf("outcome(%d)", int(o))
}

// StarterExit is how session-starter itself ends: exit_status, or death
// by signal (exit_status is then the 128+S fallback).
type StarterExit struct {
	ExitStatus int     `json:"exit_status"`
	Signal     *string `json:"signal"`
}

// ReadEnded reads the status records from r — one JSON object per line,
// as session-starter writes them on --status-fd and [Session.Status]
// carries them — and returns the "ended" record, which is always the
// last. It returns as soon as that record has been read, without
// waiting for session-starter to exit.
// Records of other events ("started") are skipped, and fields this
// package does not know are ignored, as the records' contract asks of a
// launcher. The error is [ErrNoEnded] when r ends first, or the error of
// reading r or decoding a record that is not a JSON object.
func ReadEnded(r io.Reader) (StatusEnded, error) {
	dec := json.NewDecoder(r)
	for {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			if errors.Is(err, io.EOF) {
				return StatusEnded{}, ErrNoEnded
			}
			return StatusEnded{}, fmt.Errorf("read the status records: %w", err)
		}
		var ev struct {
			Event string `json:"event"`
		}
		if err := json.Unmarshal(raw, &ev); err != nil {
			return StatusEnded{}, fmt.Errorf("status record %s: %w", truncate(raw), err)
		}
		if ev.Event != "ended" {
			continue
		}
		var rec StatusEnded
		if err := json.Unmarshal(raw, &rec); err != nil {
			return StatusEnded{}, fmt.Errorf("ended record %s: %w", truncate(raw), err)
		}
		return rec, nil
	}
}
