//go:build darwin || freebsd

package sys

import "syscall"

// fatalHere are the signals of fatalStops that only macOS and FreeBSD
// have: the Go runtime throws on SIGEMT.
var fatalHere = []syscall.Signal{syscall.SIGEMT}
