//go:build darwin || freebsd

package gate

import (
	"os"

	"github.com/session-starter/session-starter/internal/sys"
)

// writeSpec returns a close-on-exec descriptor of an unlinked temporary
// file holding the Engine's program, argv and environment (encodeSpec):
// macOS has no memfd, and a pipe could not take an Engine command line
// longer than its buffer before the gate reads it.
func writeSpec(spec Spec) (int, error) {
	f, err := os.CreateTemp("", "session-starter-gate-")
	if err != nil {
		return -1, err
	}
	defer f.Close()
	if err := os.Remove(f.Name()); err != nil {
		return -1, err
	}
	if _, err := f.Write(encodeSpec(spec)); err != nil {
		return -1, err
	}
	// A descriptor of our own, close-on-exec, that outlives f.
	fd, err := sys.DupCloseOnExec(int(f.Fd()), 3)
	if err != nil {
		return -1, err
	}
	return fd, nil
}
