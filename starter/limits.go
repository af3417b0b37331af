package starter

import (
	"fmt"
	"slices"

	"github.com/session-starter/session-starter/internal/cgroup"
	"github.com/session-starter/session-starter/internal/wire"
)

// Limits bound a session's whole tree, every process of it whether it
// left the Engine's group or not, through its session cgroup (Linux,
// cgroup mode): the kernel enforces them, and a zero field sets no bound.
//
// They are written after the gate is ready and before the go-ahead, and
// read back: a limit the kernel refuses, one read back other than asked,
// or one whose controller (pids, memory, cpu) is not available fails Run
// with exit status 125 and nothing executed. Asked for where they cannot
// be enforced — group mode, macOS, FreeBSD, Windows, the portable build —
// Run fails the same way: a limit is never silently not applied.
//
// Where the session cgroup is made matters: cgroup v2 lets a cgroup that
// holds processes enable the threaded controllers (pids, cpu) for the
// cgroups below it, but not the memory controller (the "no internal
// processes" rule; the root cgroup is exempt). So with MaxMemory, when
// the cgroup where session cgroups are made is this process's own, and it
// holds no other process (systemd-run --scope -p Delegate=yes, a
// container's init), this process first moves itself into a leaf cgroup
// of its own beside the session cgroup (session-starter-….supervisor),
// where its guard is born too, and then enables the controller; at the
// end it moves back and removes the leaf. If other processes share its
// cgroup (the launcher's shell, say), Run fails naming them;
// [Options.CgroupParent] names a cgroup with no process to make the
// session cgroups in instead. Only one session of a process at a time can
// move it: a library caller running sessions with MaxMemory side by side
// gives them a CgroupParent.
type Limits struct {
	// MaxTasks is pids.max: the most tasks the tree may have live at
	// once, threads included (a Go or Node program runs several). A fork
	// or a thread's creation beyond it fails with EAGAIN.
	MaxTasks int
	// MaxMemory is memory.max in bytes: the tree's memory, page cache
	// included; beyond it the kernel reclaims, and then its OOM killer
	// ends a process of the tree (reported: [Result] Usage.OOMKills). With
	// it, MaxSwap is memory.swap.max, 0 meaning no swap at all.
	MaxMemory, MaxSwap int64
	// MaxCPU is cpu.max in CPUs: 0.5 is half of one CPU's time, 2 two
	// CPUs' — over each 100 ms period, the tree as a whole.
	MaxCPU float64
	// Calls names the kinds of limit — "tasks", "memory", "cpu" — the
	// session's contained calls may set for themselves
	// (package starter/contain, Cmd.Limits), each in its own cgroup. It
	// bounds nothing: it makes their controllers (pids, memory, cpu)
	// available to the session cgroup as the session's own limits would,
	// moving this process into a supervisor leaf where that needs it (see
	// above). Where a session limit needs the controller already, it is
	// not needed. Windows needs none of it — a call's job takes limits of
	// its own — and takes it as asked; elsewhere without cgroups it fails
	// as a limit does.
	Calls []string
}

// The kinds of limit of [Limits.Calls].
const (
	callTasks  = "tasks"
	callMemory = "memory"
	callCPU    = "cpu"
)

// Any reports whether l sets a bound.
func (l Limits) Any() bool { return l.MaxTasks > 0 || l.MaxMemory > 0 || l.MaxCPU > 0 }

// needsCgroup reports whether l asks anything of a session cgroup: a
// bound, or controllers for the calls.
func (l Limits) needsCgroup() bool { return l.Any() || len(l.Calls) > 0 }

// Check refuses limits no kernel could take, before anything starts
// (Run does it first; package contain for a call's).
func (l Limits) Check() error {
	for _, k := range l.Calls {
		if !slices.Contains([]string{callTasks, callMemory, callCPU}, k) {
			return fail(wire.ExitUsage, "--call-limits %q: want %s, %s or %s", k, callTasks, callMemory, callCPU)
		}
	}
	switch {
	case l.MaxTasks < 0, l.MaxMemory < 0, l.MaxSwap < 0, l.MaxCPU < 0:
		return fail(wire.ExitUsage, "limits must not be negative")
	case l.MaxCPU > 0 && l.MaxCPU < cgroup.MinCPU:
		// cpu.max refuses a quota under 1 ms of its 100 ms period.
		return fail(wire.ExitUsage, "--max-cpu %g: at least %g (cpu.max takes no less than 1 ms of each 100 ms)", l.MaxCPU, cgroup.MinCPU)
	case l.MaxSwap > 0 && l.MaxMemory == 0:
		return fail(wire.ExitUsage, "--max-swap goes with --max-memory")
	}
	return nil
}

// String lays the limits set out for a log line.
func (l Limits) String() string {
	return fmt.Sprintf("tasks=%d memory=%d swap=%d cpu=%g calls=%v", l.MaxTasks, l.MaxMemory, l.MaxSwap, l.MaxCPU, l.Calls)
}
