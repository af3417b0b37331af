//go:build unix && !aix

package sys

import (
	"errors"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// What every Unix but AIX offers alike: the starter's Resolve builds on
// systems where a session cannot run, and asks for [Faccessat] there.
// (AIX's golang.org/x/sys/unix has no AT_EACCESS.)

// Flags and modes of [Faccessat] and of the *at calls, as the system names
// them.
const (
	AT_FDCWD = unix.AT_FDCWD
	W_OK     = unix.W_OK
)

// ignoringEINTR calls fn until it returns something other than EINTR.
// Signals delivered to a Go program interrupt slow system calls even with
// SA_RESTART, so every blocking wrapper retries.
func ignoringEINTR[T any](fn func() (T, error)) (T, error) {
	for {
		v, err := fn()
		if !errors.Is(err, unix.EINTR) {
			return v, err
		}
	}
}

// named wraps a failed call's error in an [*os.SyscallError] that names
// the call; nil stays nil.
func named(call string, err error) error {
	if err == nil {
		return nil
	}
	return os.NewSyscallError(call, err)
}

// namedErrno is named for the errno of a raw call: 0 is no error.
func namedErrno(call string, errno syscall.Errno) error {
	if errno == 0 {
		return nil
	}
	return named(call, errno)
}

// namedOrGone is named, but for ESRCH (no such process), which becomes
// [ErrGone].
func namedOrGone(call string, err error) error {
	if errors.Is(err, unix.ESRCH) {
		return ErrGone
	}
	return named(call, err)
}

// Faccessat checks whether name, in the directory of the descriptor dir
// (AT_FDCWD: the working directory), may be accessed with mode (W_OK,
// X_OK), by the real user and group, or with AT_EACCESS in flags by the
// effective ones. It retries EINTR.
func Faccessat(dir int, name string, mode uint32, flags int) error {
	_, err := ignoringEINTR(func() (struct{}, error) { return struct{}{}, unix.Faccessat(dir, name, mode, flags) })
	return named("faccessat", err)
}
