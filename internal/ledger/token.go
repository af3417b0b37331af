//go:build darwin || freebsd || linux

package ledger

import (
	"errors"
	"fmt"

	"github.com/session-starter/session-starter/internal/sys"
)

// Token names one process beyond its PID, which the kernel hands out
// again, with the record's boot id.
//
// On Linux: its start in clock ticks since boot (/proc/PID/stat field 22;
// never converted to wall time, which moves when the clock is set) and,
// where pidfds live in pidfs (Linux 6.9, on 64-bit kernels), the inode
// number of a pidfd of it, which every pidfd of that process shares and
// no other process has: compared where both have one.
//
// On macOS: its 64-bit unique id (PROC_PIDUNIQIDENTIFIERINFO), which no
// other process of the boot ever has, compared alone; Start is its start
// time (microseconds since the epoch), kept for the record. On FreeBSD:
// its start, ki_start (microseconds since the epoch), with the PID.
type Token struct {
	Start  uint64 `json:"start"`
	Pidfs  uint64 `json:"pidfs,omitempty"`
	Unique uint64 `json:"unique,omitempty"`
}

// TokenOf returns pid's token, as [TokenOfPidfd] without a descriptor.
func TokenOf(pid int) (Token, error) { return TokenOfPidfd(pid, -1) }

// errMismatch is open's error for a live process at the PID whose
// identity is not the token's: the PID was given to another process.
var errMismatch = errors.New("ledger: token-mismatch")

// Gone reports whether the process pid of token tok is shown gone: no
// live process has the PID, or the one that has it is of another
// identity (reused then: the PID was handed to a stranger, to be
// reported, never signalled). An error is that it cannot be told (short
// of descriptors, say): never taken for gone, so that a reclaim cannot
// end a live session on a failed look.
func Gone(pid int, tok Token) (gone, reused bool, err error) {
	switch err := look(pid, tok); {
	case err == nil:
		return false, false, nil
	case errors.Is(err, errMismatch):
		return true, true, nil
	case errors.Is(err, sys.ErrGone):
		return true, false, nil
	default:
		return false, false, fmt.Errorf("ledger: pid %d: %w", pid, err)
	}
}
