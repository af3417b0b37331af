package proc

import (
	"errors"
	"fmt"
	"math/bits"

	"github.com/session-starter/session-starter/internal/sys"
)

// allProcs is the kern.proc sysctl that lists every process (one record
// each, not one per thread).
const allProcs = "kern.proc.proc"

// errKinfo32 is the answer of every look at the process table on the
// 32-bit FreeBSD ports, whose kinfo_proc is laid out otherwise than the
// 64-bit one decoded here (kinfo.go): nothing is read there, and the
// starter refuses to start (SameNamespace).
var errKinfo32 = fmt.Errorf("proc: the kinfo_proc of 32-bit FreeBSD is not decoded: %w", errors.ErrUnsupported)

// parseTable decodes the records of a kern.proc sysctl ([kinfo]).
var parseTable = freebsdLayout.parse

// readEnviron reads sysctl kern.proc.env (KERN_PROC_ENV), which FreeBSD
// answers with the strings of the process's environment alone (never its
// argv) for a process the caller may debug: another user's, or one that
// changed its credentials, is refused with an error.
func readEnviron(pid int) ([]byte, error) { return sys.KernProc("kern.proc.env", pid) }

// SameNamespace holds trivially on the 64-bit ports: FreeBSD has one PID
// space (a jail sees a subset of the same numbers). On the 32-bit ones
// it answers errKinfo32: the process table cannot be read there.
func SameNamespace() error {
	if bits.UintSize != 64 {
		return errKinfo32
	}
	return nil
}
