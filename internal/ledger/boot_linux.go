package ledger

import (
	"fmt"
	"os"
	"strings"
)

// rootDir is root's ledger directory.
const rootDir = "/run/session-starter"

// BootID is this boot's id (/proc/sys/kernel/random/boot_id).
func BootID() (string, error) {
	b, err := os.ReadFile("/proc/sys/kernel/random/boot_id")
	if err != nil {
		return "", fmt.Errorf("ledger: %w", err)
	}
	return strings.TrimSpace(string(b)), nil
}
