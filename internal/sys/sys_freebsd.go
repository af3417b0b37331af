package sys

import (
	"errors"
	"fmt"
	"runtime"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The MIBs of the kern.proc sysctls, as <sys/sysctl.h> numbers them:
// CTL_KERN (1), KERN_PROC (14), then KERN_PROC_PID (1) or KERN_PROC_PGRP
// (2), each with its argument, or KERN_PROC_PROC (8), every process once
// (not once per thread); or KERN_PROC_ENV (35) with a PID.
var kernProcMIBs = map[string][]int32{
	"kern.proc.pid":  {1, 14, 1},
	"kern.proc.pgrp": {1, 14, 2},
	"kern.proc.proc": {1, 14, 8},
	"kern.proc.env":  {1, 14, 35},
}

// KernProc reads the kern.proc sysctl name with its arguments, as raw
// bytes: the struct kinfo_proc records of a listing (kern.proc.pid,
// kern.proc.pgrp, kern.proc.proc), or the environment strings of pid,
// each with its NUL (kern.proc.env; a process the caller may not debug is
// refused: EPERM, ESRCH for one in another jail). The kernel's estimate
// of the size has room for five more processes than it has; a listing
// that grew past it between the estimate and the read (ENOMEM) is read
// again, in a bigger buffer (readGrowing). ESRCH becomes [ErrGone].
func KernProc(name string, args ...int) ([]byte, error) {
	mib, ok := kernProcMIBs[name]
	if !ok {
		return nil, fmt.Errorf("sysctl %s: not a kern.proc sysctl", name)
	}
	mib = append([]int32(nil), mib...)
	for _, a := range args {
		mib = append(mib, int32(a))
	}
	b, err := readGrowing(func(buf []byte) (int, error) { return sysctl(mib, buf) })
	return b, namedOrGone("sysctl "+name, err)
}

// sysctl reads the MIB mib into old (nil: only its size) with a raw
// __sysctl, which x/sys/unix does not offer for a caller's buffer, and
// returns the length the kernel reports: with ENOMEM, old was too small
// (the kernel then filled it). No argument is 64-bit, so the call is the
// same on every port.
func sysctl(mib []int32, old []byte) (int, error) {
	n := uintptr(len(old))
	var p unsafe.Pointer
	if len(old) > 0 {
		p = unsafe.Pointer(&old[0])
	}
	// Sound: mib, old and n outlive the call; the kernel reads mib and
	// writes at most n bytes to old, and the length to n.
	_, _, errno := unix.Syscall6(unix.SYS___SYSCTL, uintptr(unsafe.Pointer(&mib[0])), uintptr(len(mib)), uintptr(p), uintptr(unsafe.Pointer(&n)), 0, 0)
	if errno != 0 {
		return int(n), errno
	}
	return int(n), nil
}

// The reaper calls of FreeBSD: procctl on this process, which
// golang.org/x/sys/unix does not wrap, made by procctlSelf: a raw system
// call on the 64-bit ports (procctl_lp64_freebsd.go); the 32-bit ones,
// where the 64-bit id_t takes two argument words (and on arm a padding
// word before them), are refused (procctl_ilp32_freebsd.go).

// procctl commands and idtype, as <sys/procctl.h> and <sys/wait.h>
// number them.
const (
	pPID              = 0 // P_PID
	procReapAcquire   = 2 // PROC_REAP_ACQUIRE
	procReapRelease   = 3 // PROC_REAP_RELEASE
	procReapStatus    = 4 // PROC_REAP_STATUS
	procReapGetpids   = 5 // PROC_REAP_GETPIDS
	procReapKill      = 6 // PROC_REAP_KILL
	reaperKillSubtree = 0x2
)

// Flags of a [ReaperPidinfo], as FreeBSD names them.
const (
	REAPER_PIDINFO_VALID  = 0x1
	REAPER_PIDINFO_ZOMBIE = 0x8
)

// The reaper structures of FreeBSD, with their padding.
type (
	reaperStatus struct {
		Flags, Children, Descendants uint32
		Reaper, PID                  int32
		_                            [15]uint32
	}
	reaperPids struct {
		Count uint32
		_     [15]uint32
		Pids  *ReaperPidinfo
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

// ReaperPidinfo is struct procctl_reaper_pidinfo, one descendant of a
// reaper ([ReapPids]): its PID, the reaper subtree it belongs to (the PID
// of the reaper's direct child it descends from), and its flags
// (REAPER_PIDINFO_VALID, REAPER_PIDINFO_ZOMBIE).
type ReaperPidinfo struct {
	PID, Subtree int32
	Flags        uint32
	_            [15]uint32
}

// The sizes of the C structures the kernel reads and writes through the
// pointers of the calls here: procctl_reaper_status 80 bytes,
// procctl_reaper_pidinfo 72, procctl_reaper_pids 64 and a pointer,
// procctl_reaper_kill 80, and struct sigaction a pointer, an int and a
// 16-byte sigset_t rounded up to the pointer's alignment (32 bytes on the
// 64-bit ports, 24 on the 32-bit ones). A layout of other size does not
// compile: the index is out of range, or the difference overflows.
var (
	_ = [1]int{}[unsafe.Sizeof(reaperStatus{})-80]
	_ = [1]int{}[unsafe.Sizeof(ReaperPidinfo{})-72]
	_ = [1]int{}[unsafe.Sizeof(reaperPids{})-64-unsafe.Sizeof(uintptr(0))]
	_ = [1]int{}[unsafe.Sizeof(reaperKill{})-80]
	_ = [1]int{}[unsafe.Sizeof(sigactiont{})-16-2*unsafe.Sizeof(uintptr(0))]
)

// ReapAcquire makes this process the reaper of its subtree (procctl
// PROC_REAP_ACQUIRE): orphans of its descendants are re-parented to it
// instead of to init. EBUSY means it is a reaper already.
func ReapAcquire() error { return procctlSelf("procctl PROC_REAP_ACQUIRE", procReapAcquire, nil) }

// ReapRelease gives the reaper role up again (procctl PROC_REAP_RELEASE).
func ReapRelease() error { return procctlSelf("procctl PROC_REAP_RELEASE", procReapRelease, nil) }

// ReapKillSubtree sends sig to the descendants of this reaper in the
// reaper subtree subtree, the PID of the reaper's direct child they
// descend from (procctl PROC_REAP_KILL with REAPER_KILL_SUBTREE): the
// kernel picks them among this reaper's descendants alone. It returns
// [ErrGone] when no process of the subtree was left to signal.
func ReapKillSubtree(subtree int, sig syscall.Signal) error {
	rk := reaperKill{Sig: int32(sig), Flags: reaperKillSubtree, Subtree: int32(subtree)}
	err := procctlSelf("procctl PROC_REAP_KILL", procReapKill, unsafe.Pointer(&rk))
	if errors.Is(err, unix.ESRCH) {
		return ErrGone
	}
	return err
}

// ReapDescendants returns how many descendants this reaper has (procctl
// PROC_REAP_STATUS).
func ReapDescendants() (int, error) {
	var st reaperStatus
	if err := procctlSelf("procctl PROC_REAP_STATUS", procReapStatus, unsafe.Pointer(&st)); err != nil {
		return 0, err
	}
	return int(st.Descendants), nil
}

// ReapPids lists the descendants of this reaper (procctl
// PROC_REAP_GETPIDS), with room for n at first. The kernel fills at most
// as many entries as it is given room for, newest first, each marked
// REAPER_PIDINFO_VALID, and says nothing of those it left out: a list
// that comes back full is asked for again with twice the room
// (listWithRoom), until its last entry is left empty. It returns the
// filled entries.
func ReapPids(n int) ([]ReaperPidinfo, error) {
	return listWithRoom(n, func(infos []ReaperPidinfo) error {
		rp := reaperPids{Count: uint32(len(infos)), Pids: &infos[0]}
		err := procctlSelf("procctl PROC_REAP_GETPIDS", procReapGetpids, unsafe.Pointer(&rp))
		runtime.KeepAlive(infos) // the kernel writes into infos through rp
		return err
	}, func(pi *ReaperPidinfo) bool { return pi.Flags&REAPER_PIDINFO_VALID != 0 })
}

// BootTime is sysctl kern.boottime: when the system booted, in seconds
// and microseconds since the epoch (moved when the clock is stepped).
func BootTime() (sec, usec int64, err error) {
	tv, err := unix.SysctlTimeval("kern.boottime")
	if err != nil {
		return 0, 0, named("sysctl kern.boottime", err)
	}
	return int64(tv.Sec), int64(tv.Usec), nil
}

// noteExit asks for the exit; FreeBSD puts the wait status in the event's
// data.
const noteExit = unix.NOTE_EXIT
