//go:build darwin || freebsd

package contain

import (
	"syscall"
	"time"

	"github.com/session-starter/session-starter/internal/end"
)

func conflictOS(*syscall.SysProcAttr) string { return "" }

// callCgroup: there are no cgroups here; a call has its group.
type callCgroup struct{}

func placeCall(*syscall.SysProcAttr, string) *callCgroup { return nil }
func (*callCgroup) path() string                         { return "" }
func (*callCgroup) holder() (end.Holder, func())         { return nil, nil }
func (*callCgroup) abandon()                             {}
func (*callCgroup) done(bool)                            {}
func (*callCgroup) cpu() (time.Duration, bool)           { return 0, false }
