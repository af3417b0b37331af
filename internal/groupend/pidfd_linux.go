package groupend

import (
	"syscall"

	"github.com/session-starter/session-starter/internal/sys"
)

// PidfdGroup is the process group led by the process a pidfd names,
// signalled with PIDFD_SIGNAL_PROCESS_GROUP (Linux 6.9). The kernel finds
// the group through the pidfd's pid object, never through the number, so
// a signal cannot reach a group that reuses the number (see
// [sys.PidfdSignalGroup]).
type PidfdGroup struct {
	Pidfd int
	PGID  int
}

// Pgid implements [Group].
func (g PidfdGroup) Pgid() int { return g.PGID }

// Signal implements [Group].
func (g PidfdGroup) Signal(sig syscall.Signal) error {
	return sys.PidfdSignalGroup(g.Pidfd, sig)
}
