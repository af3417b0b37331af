//go:build darwin || freebsd || linux

package starter

import "github.com/session-starter/session-starter/internal/sys"

// neverSweep lists the process groups the sweep must never signal as a
// group, found at start: the launcher's (parent's) and the terminal's
// foreground group on any of descriptors 0-2. The starter's and the
// guard's are added by the caller.
func neverSweep(parent int) []int {
	var out []int
	if pg, err := sys.Getpgid(parent); err == nil {
		out = append(out, pg)
	}
	for fd := range 3 {
		if pg, err := sys.Tcgetpgrp(fd); err == nil && pg > 0 {
			out = append(out, pg)
		}
	}
	return out
}
