//go:build !linux || portable

package mark

import (
	"errors"
	"fmt"

	"github.com/session-starter/session-starter/internal/proc"
)

// Supported reports that no marked process is verified here.
const Supported = false

// Found is a live process verified to carry a session's mark.
type Found struct {
	proc.Stat
	UID   int
	Pidfd int
}

// Left is a process that may carry the mark but was not verified.
type Left struct {
	PID    int
	Reason string
}

// Reasons a process is left.
const (
	LeftUnreadable = "mark-unreadable"
	LeftOtherUID   = "other-uid"
)

// Scan fails: here no process can be named by a handle that outlives its
// reading, so no mark is verified and nothing is signalled by one.
func Scan(ID, uint64, int, func(int) bool) ([]Found, []Left, error) {
	return nil, nil, fmt.Errorf("mark: no verified scan on this platform: %w", errors.ErrUnsupported)
}
