//go:build linux && !portable

package contain

import "syscall"

// preparePidfd asks the fork for the leader's pidfd (clone3
// CLONE_PIDFD): a handle that names the leader from its first moment,
// whatever becomes of its number. os keeps a duplicate of its own.
func preparePidfd(attr *syscall.SysProcAttr) *int {
	fd := -1
	attr.PidFD = &fd
	return &fd
}

// exitHandle is the leader's pidfd from the fork. A variable, so that a
// test can make it fail.
var exitHandle = func(_ int, pidfd *int) (int, error) { return *pidfd, nil }
