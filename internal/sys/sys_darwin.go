package sys

import (
	"errors"

	"golang.org/x/sys/unix"
)

// KernProc reads the struct kinfo_proc records of the kern.proc sysctl
// name with its arguments (kern.proc.pid, kern.proc.pgrp, kern.proc.all),
// as raw bytes for package proc to decode. The size is asked first; a
// table that grew past it before the read (ENOMEM) is read again, up to
// kinfoTries times. ESRCH becomes [ErrGone].
func KernProc(name string, args ...int) ([]byte, error) {
	var err error
	for range kinfoTries {
		var b []byte
		b, err = unix.SysctlRaw(name, args...)
		switch {
		case errors.Is(err, unix.ENOMEM):
			continue
		case err != nil:
			return nil, namedOrGone("sysctl "+name, err)
		}
		return b, nil
	}
	return nil, named("sysctl "+name, err)
}

// kinfoTries bounds the reads of a process table that keeps growing
// between the size and the read (a fork storm).
const kinfoTries = 16

// ProcArgs reads the sysctl kern.procargs2 (KERN_PROCARGS2) of pid: its
// argc, executable path, argv and environment as the kernel keeps them
// (package proc parses them). macOS answers only for a process of the
// caller's user (or for root), and refuses one that is exiting or a
// zombie (EINVAL) or being set up (EIO); every refusal is an error here,
// ESRCH [ErrGone].
func ProcArgs(pid int) ([]byte, error) {
	b, err := unix.SysctlRaw("kern.procargs2", pid)
	return b, namedOrGone("sysctl kern.procargs2", err)
}

// BootSessionUUID is sysctl kern.bootsessionuuid: a UUID the kernel draws
// at each boot.
func BootSessionUUID() (string, error) {
	id, err := unix.Sysctl("kern.bootsessionuuid")
	return id, named("sysctl kern.bootsessionuuid", err)
}

// CanAdoptOrphans (package starter's Options.Subreaper can be had) is
// false: macOS has no subreaper. A process that left the Engine's group
// (setsid, a double fork) is found at the end by its lineage instead.
const CanAdoptOrphans = false

// noteExit asks for the exit with its wait status in the event's data,
// which macOS gives only with NOTE_EXITSTATUS, and only to the parent.
const noteExit = unix.NOTE_EXIT | unix.NOTE_EXITSTATUS
