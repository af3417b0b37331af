//go:build !darwin && !freebsd && !linux

package sys

import "syscall"

// DiesOfStop reports false: no stop signal here makes this process die
// of it after the end.
func DiesOfStop(syscall.Signal) bool { return false }
