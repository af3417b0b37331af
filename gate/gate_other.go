//go:build !linux && !darwin && !freebsd

package gate

import (
	"fmt"
	"os"

	"github.com/session-starter/session-starter/internal/wire"
)

// gateMain is the gate side; on this platform there is none yet, and it
// exits 125 without executing anything.
func gateMain([]string) {
	fmt.Fprintln(os.Stderr, "session-starter: gate: unsupported on this platform")
	os.Exit(wire.ExitNotReleased)
}
