package starter

import (
	"github.com/session-starter/session-starter/internal/cgroup"
	"github.com/session-starter/session-starter/internal/wire"
	"github.com/session-starter/session-starter/starter/launch"
)

// needsCgroup reports whether l asks anything of a session cgroup: a
// bound, or controllers for the calls.
func needsCgroup(l launch.Limits) bool { return l.Any() || len(l.Calls) > 0 }

// checkLimits refuses limits no kernel could take, before anything
// starts (Run does it first), with the exit status of a usage error.
func checkLimits(l launch.Limits) error {
	if err := cgroup.CheckLimits(l); err != nil {
		return fail(wire.ExitUsage, "%w", err)
	}
	return nil
}
