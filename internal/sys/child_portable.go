//go:build darwin || freebsd || (linux && portable)

package sys

import (
	"errors"
	"fmt"
	"syscall"

	"golang.org/x/sys/unix"
)

// This file is the portable build's way to act on a process, the one
// macOS and FreeBSD take: by number, and only under the pinning rules —
// a child of the caller's own keeps its PID (and the group number it
// leads) allocated until the caller reaps it, running or as a zombie. The
// exit descriptor (WatchExit) is a kqueue with EVFILT_PROC/NOTE_EXIT on
// macOS and FreeBSD (exit_bsd.go); on Linux it is a pidfd, polled and
// never used for anything else (exit_portable_linux.go).

// Pidless reports whether this build acts on processes by number only
// (macOS, FreeBSD, and the Linux build with the portable tag).
const Pidless = true

// ErrNoHandle means a process that is not the caller's child cannot be
// signalled alone in this build: its number is not pinned.
var ErrNoHandle = fmt.Errorf("no handle that pins the process: %w", errors.ErrUnsupported)

// SignalChild sends sig to the caller's child pid by number: safe because
// the caller has not reaped it, so the number is still the child's,
// running or a zombie. [ErrGone] if there is no such process.
func SignalChild(pid, _ int, sig syscall.Signal) error {
	if pid <= 1 {
		return fmt.Errorf("kill: refusing pid %d", pid)
	}
	return namedOrGone("kill", unix.Kill(pid, sig))
}

// SignalWatched refuses: a process that is not the caller's child has no
// handle that pins its number in this build.
func SignalWatched(pid, _ int, _ syscall.Signal) error {
	return fmt.Errorf("pid %d: %w", pid, ErrNoHandle)
}

// CanSignalGroup reports false: a group is signalled by number in this
// build, only while the caller pins it.
func CanSignalGroup() bool { return false }

// GroupSignal always answers [ErrNoGroupSignal]: a group is signalled by
// number in this build, by the caller that pins it.
func GroupSignal(int, syscall.Signal) error { return ErrNoGroupSignal }
