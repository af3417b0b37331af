package gate

import (
	"github.com/session-starter/session-starter/internal/sys"
)

// writeSpec returns a close-on-exec memfd holding the Engine's program,
// argv and environment (encodeSpec).
func writeSpec(spec Spec) (int, error) {
	fd, err := sys.MemfdCreate("session-starter-gate")
	if err != nil {
		return -1, err
	}
	if err := sys.WriteAll(fd, encodeSpec(spec)); err != nil {
		sys.Close(fd)
		return -1, err
	}
	return fd, nil
}
