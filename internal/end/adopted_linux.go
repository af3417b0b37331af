package end

import (
	"errors"
	"syscall"

	"github.com/session-starter/session-starter/internal/proc"
	"github.com/session-starter/session-starter/internal/sys"
)

// childrenOfProcess lists the children of every thread of pid.
func childrenOfProcess(pid int) ([]int, error) { return proc.Children(pid) }

// openDescendant opens pid, listed as a child of parent, through a pidfd,
// and keeps it only if /proc shows parent as its parent while the pidfd
// shows it unreaped before and after that read: a process that held the
// number all along is the one /proc described, a child of parent, and so
// of the session. The portable build, which signals by number only,
// opens none (a descendant is not its child: its number is not pinned).
func openDescendant(pid, parent int, forbidden []int) (adoptedChild, bool) {
	if sys.Pidless {
		return adoptedChild{}, false
	}
	c, ok := openChild(pid, parent, forbidden)
	if ok && !unreaped(c.fd) {
		sys.Close(c.fd)
		return adoptedChild{}, false
	}
	return c, ok
}

// unreaped reports whether the process of pidfd still holds its number:
// signal 0 succeeds (a zombie included) or is refused for permission.
func unreaped(fd int) bool {
	err := sys.PidfdSignal(fd, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
