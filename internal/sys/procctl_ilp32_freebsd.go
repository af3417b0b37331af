//go:build !(amd64 || arm64 || riscv64)

package sys

import (
	"errors"
	"fmt"
	"unsafe"
)

// errProcctl32 is every reaper call's answer on the 32-bit FreeBSD ports
// (386, arm): procctl's id_t is 64 bits there, passed in two argument
// words (on arm after a padding word), and this build does not make that
// call. The reaper is not had, and the session does not start (package
// proc refuses these ports too).
var errProcctl32 = fmt.Errorf("procctl on 32-bit FreeBSD: %w", errors.ErrUnsupported)

// procctlSelf refuses: see errProcctl32.
func procctlSelf(call string, _ int, _ unsafe.Pointer) error {
	return fmt.Errorf("%s: %w", call, errProcctl32)
}

// CanAdoptOrphans is false on the 32-bit ports (386, arm): they make no
// procctl call, and hold no session at all (the process table is not
// read there: internal/proc).
const CanAdoptOrphans = false
