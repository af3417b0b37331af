package ledger

import (
	"fmt"

	"github.com/session-starter/session-starter/internal/sys"
)

// rootDir is root's ledger directory.
const rootDir = "/var/run/session-starter"

// BootID is this boot's id: kern.bootsessionuuid, a UUID the kernel
// draws at each boot.
func BootID() (string, error) {
	id, err := sys.BootSessionUUID()
	if err != nil || id == "" {
		return "", fmt.Errorf("ledger: boot id %q: %v", id, err)
	}
	return id, nil
}
