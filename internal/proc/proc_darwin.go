package proc

import "github.com/session-starter/session-starter/internal/sys"

// allProcs is the kern.proc sysctl that lists every process.
const allProcs = "kern.proc.all"

// SameNamespace holds trivially: macOS has one PID space.
func SameNamespace() error { return nil }

// parseTable decodes the records of a kern.proc sysctl ([kinfo]).
var parseTable = macLayout.parse

// readEnviron reads sysctl kern.procargs2 and skips argv by its count
// ([EnvironOfProcArgs]). macOS refuses it for another user's process and
// one that is exiting, each an error, and, while System Integrity
// Protection is on, leaves the environment out for a restricted process
// (cs_restricted: one dyld treats as restricted, as a setuid one) other
// than the caller: its environment reads as empty.
func readEnviron(pid int) ([]byte, error) {
	b, err := sys.ProcArgs(pid)
	if err != nil {
		return nil, err
	}
	return EnvironOfProcArgs(b)
}
