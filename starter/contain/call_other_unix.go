//go:build darwin || freebsd

package contain

import (
	"syscall"

	"github.com/session-starter/session-starter/starter/launch"
)

func conflictOS(*syscall.SysProcAttr) string { return "" }

// passOnlyAsked: a call here also inherits what this process holds
// without close-on-exec, as with os/exec (see the package doc).
func passOnlyAsked() (restore func()) { return func() {} }

// placeCall gives the call no cgroup: there are none here; limits,
// which would need one, fail.
func placeCall(_ string, lim launch.Limits) (callLayer, error) {
	if lim.Any() {
		return nil, errNoLimits("cgroups are Linux's, and there is no other way to bound a call's tree here")
	}
	return nil, nil
}
