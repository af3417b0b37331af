package rawfork

import (
	"time"

	"github.com/session-starter/session-starter/internal/sys/rlimit"
	"github.com/session-starter/session-starter/internal/wire"
)

// GateSpec says what a raw gate is to become.
type GateSpec struct {
	// Path is the Engine's program, resolved; Argv its arguments, Argv[0]
	// included; Env its environment. Shell runs a Path that execve
	// refuses with ENOEXEC, as execvp does.
	Path, Shell string
	Argv, Env   []string
	// Comm is the gate's command name until it executes the Engine.
	Comm string
	// Files are the Engine's descriptors, at their own numbers.
	Files []int
	// CgroupProcs, when > 2, is the session cgroup's cgroup.procs, which
	// a gate not born there writes "0" to before it says ready; Complaint
	// is written to stderr with the errno if that fails. CgroupDir, when
	// > 2, is the session cgroup's directory, in which the gate is born
	// (CLONE_INTO_CGROUP) unless IntoRefused.
	CgroupProcs, CgroupDir int
	IntoRefused            bool
	Complaint              string
	// Restore puts Orig back as the open-files limit before the Engine's
	// execve, provided Raised (what package syscall set) is in force.
	Restore      bool
	Orig, Raised rlimit.Limit
	// ListenPID, when > 0, is 1 + the index in Env of the entry
	// LISTEN_PID, which the gate replaces with LISTEN_PID=<its own PID>,
	// the Engine's; ListenPIDFDID likewise names LISTEN_PIDFDID, replaced
	// with the pidfs inode number of the gate's pidfd, the Engine's
	// (Linux 6.9). Both are patched in the child's own copy of the arena,
	// in a line of room reserved for them.
	ListenPID, ListenPIDFDID int
}

// Gate is a started raw gate: it says "ready PID" on the read end RepR,
// and executes the Engine once "go PID" comes on the write end GoW.
type Gate struct {
	PID, Pidfd int
	GoW, RepR  int
	// BornInto: made inside the session cgroup, not moved there.
	BornInto bool
}

// Verify modes: what the guard proper is executed for.
const (
	// VerifyFinish: a valid finish came but the cheap test did not show
	// the session empty (a zombie left in group E, say); the guard looks
	// itself, and keeps guarding if it is not.
	VerifyFinish = 0
	// VerifyGone: the starter is gone; the porch has struck. The guard
	// ends what is left by the deadline.
	VerifyGone = 1
)

// PorchSpec says what the porch holds and how it goes on.
type PorchSpec struct {
	// Comm is its command name.
	Comm string
	// PGID is the Engine's group E, led by the process of wire.SlotGate.
	PGID int
	// Budget is the whole end's: from the first strike to the deadline.
	Budget time.Duration
	// From lists, for each slot, the descriptor of this process that goes
	// there, or -1. wire.SlotExe is the guard binary.
	From [wire.Slots]int
	// Codes are its refusals' ("refused CODE"); it says "armed PGID" and
	// obeys "finish PGID" (package wire).
	Codes Refusals
	// ExitDone, ExitRefused: its exit statuses.
	ExitDone, ExitRefused int
	// FirstRound, MaxRound, FirstLook, MaxLook: the end's pacing.
	FirstRound, MaxRound, FirstLook, MaxLook time.Duration
	// Strikes is how many SIGKILL rounds the porch sends before it
	// executes the guard proper.
	Strikes int
	// Release says the starter may release the session: a finish is
	// then obeyed once the Engine has exited, whatever group E and the
	// session cgroup still hold.
	Release bool
	// MarkVar and MarkID are the session's mark: the variable's name and
	// the id among the elements of its value (32 hexadecimal digits),
	// or "" without a mark. Since is the session's start, in clock ticks
	// since boot: a marked process started before it is not the
	// session's. The porch strikes the marked of this user itself.
	MarkVar, MarkID string
	Since           uint64
	// Argv[mode] is the guard proper's command line for each verify
	// mode; the number at Argv[mode][NumArg] ("" in the spec) is filled
	// in by the porch: the budget for VerifyFinish, the deadline (as
	// CLOCK_MONOTONIC nanoseconds) for VerifyGone. Env is its environment.
	Argv   [2][]string
	NumArg int
	Env    []string
}

// Refusals are the codes of the porch's refusals.
type Refusals struct {
	InGroup, GroupGone, NoGroupSignal, Setup, NoCgroup int
}

// Porch is a started porch.
type Porch struct {
	PID, Pidfd int
}
