//go:build darwin || freebsd

package contain

import (
	"syscall"

	"github.com/session-starter/session-starter/internal/end"
	"github.com/session-starter/session-starter/starter"
	"github.com/session-starter/session-starter/starter/launch"
)

func conflictOS(*syscall.SysProcAttr) string { return "" }

// passOnlyAsked: a call here also inherits what this process holds
// without close-on-exec, as with os/exec (see the package doc).
func passOnlyAsked() (restore func()) { return func() {} }

// callCgroup: there are no cgroups here; a call has its group.
type callCgroup struct{}

// placeCall gives the call no cgroup; limits, which would need one, fail.
func placeCall(_ *syscall.SysProcAttr, _ string, lim starter.Limits) (*callCgroup, error) {
	if lim.Any() {
		return nil, errNoLimits("cgroups are Linux's, and there is no other way to bound a call's tree here")
	}
	return nil, nil
}

func (*callCgroup) path() string                 { return "" }
func (*callCgroup) holder() (end.Holder, func()) { return nil, nil }
func (*callCgroup) abandon()                     {}
func (*callCgroup) removeEmpty() bool            { return true }
func (*callCgroup) done(bool)                    {}
func (*callCgroup) usage() (launch.Usage, bool)  { return launch.Usage{}, false }
