package proc

import (
	"errors"
	"fmt"
	"os"

	"github.com/session-starter/session-starter/internal/sys"
)

// allProcs is the kern.proc sysctl that lists every process.
const allProcs = "kern.proc.all"

// SameNamespace holds trivially: macOS has one PID space.
func SameNamespace() error { return nil }

// parseTable decodes the records of a kern.proc sysctl ([kinfo]).
var parseTable = macLayout.parse

// ReadEnviron returns the environment of pid as entries each ended by a NUL,
// from sysctl kern.procargs2 with argv skipped by its count
// ([EnvironOfProcArgs]). macOS refuses it for another user's process and
// one that is exiting, each an error (os.ErrNotExist for a process that
// is not there), and, while System Integrity Protection is on, leaves the
// environment out for a restricted process (cs_restricted: one dyld
// treats as restricted, as a setuid one) other than the caller: its
// environment reads as empty.
func ReadEnviron(pid int) ([]byte, error) {
	b, err := sys.ProcArgs(pid)
	if errors.Is(err, sys.ErrGone) {
		return nil, fmt.Errorf("proc: pid %d: %w", pid, os.ErrNotExist)
	}
	if err != nil {
		return nil, fmt.Errorf("proc: pid %d: %w", pid, err)
	}
	return EnvironOfProcArgs(b)
}
