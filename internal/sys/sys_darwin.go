package sys

import (
	"errors"

	"golang.org/x/sys/unix"
)

// KinfoProc is macOS's struct kinfo_proc.
type KinfoProc = unix.KinfoProc

// KinfoProcs reads the kinfo_proc records of the kern.proc sysctl name
// with its arguments (kern.proc.pid, kern.proc.pgrp, kern.proc.all).
// ESRCH becomes [ErrGone].
func KinfoProcs(name string, args ...int) ([]KinfoProc, error) {
	ps, err := unix.SysctlKinfoProcSlice(name, args...)
	if errors.Is(err, unix.ESRCH) {
		return nil, ErrGone
	}
	if err != nil {
		return nil, named("sysctl "+name, err)
	}
	return ps, nil
}
