//go:build linux && !portable

package gate

// The raw gate: a fork of the starter that runs no Go runtime of its own
// (package rawfork holds its code). It speaks the same messages as the
// re-executed gate, so the rest of [Gate] serves both.

import (
	"fmt"
	"sync"

	"github.com/session-starter/session-starter/internal/sys"
	"github.com/session-starter/session-starter/internal/sys/rawfork"
	"github.com/session-starter/session-starter/internal/sys/rlimit"
	"github.com/session-starter/session-starter/internal/wire"
)

// rawSupported reports whether the raw gate can be used: this build has
// it (rawfork's toolchain and architecture fence), the kernel has
// close_range (Linux 5.9), which lets the child drop every descriptor it
// inherited, and the open-files limit the process started with is known,
// or the Engine would get the one the Go runtime raised.
var rawSupported = sync.OnceValue(func() bool {
	_, ok := rlimit.Original()
	return ok && rawfork.Supported && rawfork.CloseRangeWorks()
})

// spawnRaw starts the raw gate: a fork of this process that leads a new
// process group, is born in (or joins) the session cgroup, keeps only the
// Engine's descriptors and its own two pipes, says ready and waits for
// the go-ahead, then executes the Engine's program.
func spawnRaw(spec Spec) (*Gate, error) {
	rs := rawfork.GateSpec{
		Path: spec.Path, Shell: shell, Argv: spec.Argv, Env: spec.Env, Comm: wire.GateComm, Files: spec.Files,
		CgroupProcs: spec.CgroupProcs, CgroupDir: spec.CgroupDir, IntoRefused: intoCgroupKills.Load(),
		Complaint: "session-starter: gate: join the session cgroup: errno ",
		ListenPID: spec.ListenPID, ListenPIDFDID: spec.ListenPIDFDID,
	}
	if orig, ok := rlimit.Original(); ok && orig.Max > 0 && orig.Cur < orig.Max-1 {
		// The runtime raised the soft limit to hard-1 (package syscall's
		// init); a limit found otherwise was set since, and is kept.
		rs.Restore, rs.Orig, rs.Raised = true, orig, rlimit.Limit{Cur: orig.Max - 1, Max: orig.Max}
	}
	r, err := rawfork.StartGate(rs)
	if err != nil {
		return nil, fmt.Errorf("gate: %w", err)
	}
	g := &Gate{PID: r.PID, Pidfd: r.Pidfd, path: spec.Path, goW: r.GoW, repR: r.RepR, bornInto: r.BornInto}
	// The child leads its group only once it has run that far; set it
	// from here too, as a shell does for its jobs, so that group E exists
	// when Spawn returns and the guard can be armed on it at once. The
	// child has executed nothing, so this cannot fail with EACCES.
	if err := sys.Setpgid(g.PID, g.PID); err != nil {
		g.kill()
		return nil, fmt.Errorf("gate: %w", err)
	}
	return g, nil
}
