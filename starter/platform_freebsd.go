package starter

import (
	"errors"
	"os"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/session-starter/session-starter/internal/end"
	"github.com/session-starter/session-starter/internal/proc"
	"github.com/session-starter/session-starter/internal/sys"
)

// CanAdoptOrphans ([Options.Subreaper] can be had) is true: the starter becomes the reaper of its subtree.
const CanAdoptOrphans = true

// procctl(2) commands and idtype of <sys/procctl.h> and <sys/wait.h>.
const (
	pPID            = 0 // P_PID
	procReapAcquire = 2 // PROC_REAP_ACQUIRE
	procReapRelease = 3 // PROC_REAP_RELEASE
)

// subreaper makes this process the reaper of its subtree
// (procctl PROC_REAP_ACQUIRE): orphans of the Engine's tree — also
// processes that left group E with setsid or setpgid — are re-parented
// to it instead of to init. It returns a function that gives the role
// up again, unless the process was a reaper already.
func subreaper() (func(), error) {
	err := procctl(procReapAcquire)
	if errors.Is(err, unix.EBUSY) {
		return func() {}, nil // a reaper already: it stays one
	}
	if err != nil {
		return nil, err
	}
	return func() { _ = procctl(procReapRelease) }, nil
}

// procctl calls procctl(P_PID, getpid(), cmd, NULL).
func procctl(cmd int) error {
	_, _, errno := unix.Syscall6(unix.SYS_PROCCTL, pPID, uintptr(os.Getpid()), uintptr(cmd), 0, 0, 0)
	if errno != 0 {
		return os.NewSyscallError("procctl", errno)
	}
	return nil
}

// procctl(2) reaper commands and flags of <sys/procctl.h>.
const (
	procReapStatus    = 4 // PROC_REAP_STATUS
	procReapGetpids   = 5 // PROC_REAP_GETPIDS
	procReapKill      = 6 // PROC_REAP_KILL
	reaperKillSubtree = 0x2
	pidinfoValid      = 0x1
	pidinfoZombie     = 0x8
)

// The reaper structures of <sys/procctl.h>, with their padding.
type (
	reaperStatus struct {
		Flags, Children, Descendants uint32
		Reaper, PID                  int32
		_                            [15]uint32
	}
	reaperPidinfo struct {
		PID, Subtree int32
		Flags        uint32
		_            [15]uint32
	}
	reaperPids struct {
		Count uint32
		_     [15]uint32
		Pids  *reaperPidinfo
	}
	reaperKill struct {
		Sig     int32
		Flags   uint32
		Subtree int32
		Killed  uint32
		FPID    int32
		_       [15]uint32
	}
)

// reaperHolders is the Engine's subtree under this process, its reaper:
// every process descended from the gate, whatever group or session it
// moved to, while it lives.
func (s *session) reaperHolders() []end.Holder {
	if s.subreaper == nil {
		return nil
	}
	return []end.Holder{&subtree{engine: s.engine}}
}

// subtree holds the Engine's subtree: the descendants of this process, as
// a reaper, whose reaper subtree is the Engine's (pi_subtree, inherited at
// every fork from the reaper's direct child, the gate, and kept by orphans
// re-parented to the reaper). It is signalled with PROC_REAP_KILL and
// REAPER_KILL_SUBTREE: the kernel picks the members among this reaper's
// descendants alone, and the number names the subtree only while the
// Engine is this process's unreaped child; after its reap nothing is
// signalled this way.
type subtree struct{ engine *end.Process }

// Kind implements [end.Holder].
func (t *subtree) Kind() end.Kind { return end.KindReaper }

// Notify implements [end.Holder]: nothing announces a subtree's end.
func (t *subtree) Notify() (int, int16) { return -1, 0 }

// Signal implements [end.Holder].
func (t *subtree) Signal(sig syscall.Signal) error {
	if t.engine.Reaped() {
		return sys.ErrGone // the subtree number is no longer pinned: the group and the escapees hold the rest
	}
	rk := reaperKill{Sig: int32(sig), Flags: reaperKillSubtree, Subtree: int32(t.engine.PID)}
	// Sound: rk outlives the call, which reads and writes it.
	_, _, errno := unix.Syscall6(unix.SYS_PROCCTL, pPID, uintptr(os.Getpid()), procReapKill, uintptr(unsafe.Pointer(&rk)), 0, 0)
	switch {
	case errno == unix.ESRCH:
		return sys.ErrGone // no process of the subtree was left to signal
	case errno != 0:
		return os.NewSyscallError("procctl PROC_REAP_KILL", errno)
	}
	return nil
}

// Live implements [end.Holder]: the subtree's descendants that are not
// zombies, from PROC_REAP_GETPIDS.
func (t *subtree) Live() ([]end.Member, error) {
	var st reaperStatus
	// Sound: st outlives the call, which writes it.
	if _, _, errno := unix.Syscall6(unix.SYS_PROCCTL, pPID, uintptr(os.Getpid()), procReapStatus, uintptr(unsafe.Pointer(&st)), 0, 0); errno != 0 {
		return nil, os.NewSyscallError("procctl PROC_REAP_STATUS", errno)
	}
	// Room for those forked since the count; the kernel fills at most
	// Count entries and marks each it filled valid.
	infos := make([]reaperPidinfo, st.Descendants+64)
	rp := reaperPids{Count: uint32(len(infos)), Pids: &infos[0]}
	// Sound: rp and infos outlive the call, which writes into infos.
	if _, _, errno := unix.Syscall6(unix.SYS_PROCCTL, pPID, uintptr(os.Getpid()), procReapGetpids, uintptr(unsafe.Pointer(&rp)), 0, 0); errno != 0 {
		return nil, os.NewSyscallError("procctl PROC_REAP_GETPIDS", errno)
	}
	var out []end.Member
	for _, pi := range infos {
		if pi.Flags&pidinfoValid == 0 {
			break
		}
		if pi.Subtree != int32(t.engine.PID) || pi.Flags&pidinfoZombie != 0 {
			continue
		}
		if st, err := proc.ReadStat(int(pi.PID)); err == nil && st.Live() {
			out = append(out, end.MemberOf(st))
		}
	}
	return out, nil
}
