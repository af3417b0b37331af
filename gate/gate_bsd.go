//go:build darwin || freebsd

package gate

import (
	"os"

	"github.com/session-starter/session-starter/internal/sys"
)

// specFile returns a close-on-exec descriptor of an unlinked temporary
// file for the Engine's command line: macOS has no memfd, and a pipe
// could not take an Engine command line longer than its buffer before
// the gate reads it.
func specFile() (int, error) {
	f, err := os.CreateTemp("", "session-starter-gate-")
	if err != nil {
		return -1, err
	}
	defer f.Close()
	if err := os.Remove(f.Name()); err != nil {
		return -1, err
	}
	// A descriptor of our own, close-on-exec, that outlives f.
	return sys.DupCloseOnExec(int(f.Fd()), 3)
}
