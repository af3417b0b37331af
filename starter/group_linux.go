package starter

import (
	"errors"
	"os"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/session-starter/session-starter/internal/groupend"
	"github.com/session-starter/session-starter/internal/sys"
)

// engineGroup is group E as the starter signals it: through the gate's
// pidfd with PIDFD_SIGNAL_PROCESS_GROUP (Linux 6.9), and on an older
// kernel with kill(-E). Both are safe here for one reason: the starter
// calls Signal only while the Engine is its unreaped child (it reaps only
// after the group end), and the Engine — running or a zombie — keeps its
// PID and the group number E allocated, so -E cannot name a newer group.

type engineGroup struct {
	groupend.PidfdGroup
}

// Signal implements [groupend.Group].
func (g engineGroup) Signal(sig syscall.Signal) error {
	err := g.PidfdGroup.Signal(sig)
	if !errors.Is(err, sys.ErrNoGroupSignal) {
		return err
	}
	err = unix.Kill(-g.PGID, sig)
	if errors.Is(err, unix.ESRCH) {
		return sys.ErrGone
	}
	if err != nil {
		return os.NewSyscallError("kill", err)
	}
	return nil
}
