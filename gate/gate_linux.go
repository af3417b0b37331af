package gate

import "github.com/session-starter/session-starter/internal/sys"

// specFile returns a close-on-exec memfd for the Engine's command line.
func specFile() (int, error) { return sys.MemfdCreate("session-starter-gate") }
