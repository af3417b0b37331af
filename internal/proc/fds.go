//go:build darwin || freebsd || linux

package proc

import "github.com/session-starter/session-starter/internal/sys"

// Inheritable lists this process's descriptors from 3 up that are not
// close-on-exec: those every child it starts inherits. When the
// descriptors cannot be listed it lists none.
func Inheritable() []int {
	fds, _ := OpenFDs()
	var out []int
	for _, fd := range fds {
		if cloexec, err := sys.CloseOnExec(fd); fd > 2 && err == nil && !cloexec {
			out = append(out, fd)
		}
	}
	return out
}
