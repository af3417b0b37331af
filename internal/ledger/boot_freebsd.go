package ledger

import (
	"fmt"

	"github.com/session-starter/session-starter/internal/sys"
)

// rootDir is root's ledger directory.
const rootDir = "/var/run/session-starter"

// BootID is this boot's id: the boot time, kern.boottime, to the
// microsecond (FreeBSD draws no boot UUID). The kernel moves it when the
// clock is stepped: a record written before a step then reads as of
// another boot, and is dropped, nothing signalled — a reclaim lost, never
// a process ended by mistake.
func BootID() (string, error) {
	sec, usec, err := sys.BootTime()
	if err != nil {
		return "", fmt.Errorf("ledger: %w", err)
	}
	return fmt.Sprintf("boottime:%d.%06d", sec, usec), nil
}
