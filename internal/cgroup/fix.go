package cgroup

import (
	"errors"
	"runtime"
)

// ErrNoKill is why cgroup mode is impossible on a kernel before Linux
// 5.14: the session cgroup has no writable cgroup.kill.
var ErrNoKill = errors.New("no writable cgroup.kill (Linux 5.14)")

// Fix says what makes cgroup mode possible where why, the reason a
// session fell back to its process group or the error it failed with,
// made it impossible.
func Fix(why error) string {
	switch {
	case errors.Is(why, errors.ErrUnsupported) && runtime.GOOS == "linux":
		return "build session-starter without -tags portable"
	case errors.Is(why, errors.ErrUnsupported):
		return "cgroups are Linux's; here the session is held by its process group"
	case errors.Is(why, ErrNoKill):
		return "cgroup mode needs cgroup.kill, Linux 5.14 or later"
	case errors.Is(why, ErrShared):
		return "limits need session-starter in a cgroup of its own (systemd-run --scope -p Delegate=yes session-starter …, " +
			"or --user as a user), or --cgroup-parent naming a delegated cgroup that holds no process"
	case errors.Is(why, ErrOnV1):
		return "limits need the controller on cgroup v2, which only the host can change " +
			"(systemd.unified_cgroup_hierarchy=1 at boot); delegation or subtree_control cannot help"
	case errors.Is(why, ErrNotDelegated):
		return "enable the controller in the cgroups above (their cgroup.subtree_control), or start session-starter where " +
			"it is delegated (systemd-run --scope -p Delegate=yes session-starter …)"
	}
	return "cgroup mode needs a cgroup v2 directory it may write: start session-starter as root, " +
		"or in a cgroup delegated to its user (systemd-run --user --scope -p Delegate=yes session-starter …)"
}
