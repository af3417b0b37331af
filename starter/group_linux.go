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
//
// Once the Engine has exited, Settle reaps it early — keeping its status —
// and reaps the adopted children that have exited, so that a group whose
// members were all the starter's descendants shows as gone (ESRCH) without
// a /proc scan. It does so only where the pidfd group signal works: the
// kill(-E) fallback needs the Engine's zombie to pin E.
type engineGroup struct {
	groupend.PidfdGroup
	eng *engine
}

// engine is what the starter knows of the Engine's process.
type engine struct {
	pid, guard int
	adopting   bool // the starter reaps its adopted children
	reaped     bool
	status     sys.WaitStatus // valid once reaped
}

// Settle implements [groupend.Settler].
func (g engineGroup) Settle() {
	e := g.eng
	if e == nil || !sys.GroupSignalSupported() {
		return
	}
	if !e.reaped {
		if st, exited, err := sys.Peek(g.Pidfd); err == nil && exited {
			if _, err := sys.Reap(g.Pidfd); err == nil {
				e.status, e.reaped = st, true
			}
		}
	}
	if e.adopting {
		managed := []int{e.guard}
		if !e.reaped {
			managed = append(managed, e.pid)
		}
		reapAdopted(managed...)
	}
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
