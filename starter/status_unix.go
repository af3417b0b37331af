//go:build darwin || freebsd || linux

package starter

import (
	"encoding/json"

	"github.com/session-starter/session-starter/internal/sys"
)

// statusFD writes the records to a descriptor with raw writes: a reader
// that is gone gives EPIPE, never death by SIGPIPE.
type statusFD int

func (fd statusFD) write(v any) {
	if fd < 0 {
		return
	}
	b, err := json.Marshal(v)
	if err != nil {
		return
	}
	_ = sys.WriteAll(int(fd), append(b, '\n'))
}
