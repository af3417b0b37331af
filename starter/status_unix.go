//go:build darwin || freebsd || linux

package starter

import (
	"encoding/json"

	"github.com/session-starter/session-starter/internal/sys"
)

// statusFD writes the records to a descriptor with raw writes: a reader
// that is gone gives EPIPE, never death by SIGPIPE.
type statusFD int

// openStatus is the status descriptor o names, checked, or -1 for none.
func openStatus(o Options) (statusFD, error) {
	if o.StatusFD == 0 {
		return -1, nil
	}
	if err := checkStatusFD(o.StatusFD, o.ControlFD); err != nil {
		return -1, err
	}
	return statusFD(o.StatusFD), nil
}

// on reports whether fd is a status descriptor, not none.
func (fd statusFD) on() bool { return fd >= 0 }

// write writes v as one line of JSON; Run calls it only when on.
func (fd statusFD) write(v any) {
	b, err := json.Marshal(v)
	if err != nil {
		return
	}
	_ = sys.WriteAll(int(fd), append(b, '\n'))
}
