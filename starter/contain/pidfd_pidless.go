//go:build (linux && portable) || darwin || freebsd

package contain

import (
	"syscall"

	"github.com/session-starter/session-starter/internal/sys"
)

func preparePidfd(*syscall.SysProcAttr) *int { return nil }

// exitHandle opens the leader's exit descriptor after the fork: safe,
// since the leader is this process's unreaped child, whose number cannot
// be handed out again.
var exitHandle = func(pid int, _ *int) (int, error) { return sys.WatchExit(pid) }
