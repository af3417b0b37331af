package exit

import (
	"strconv"

	"github.com/session-starter/session-starter/starter"
)

// Ack returns the acknowledgement line Main writes: one line of JSON with
// session_containment first, then the Engine's PID (also its group) and
// the containment mode, as package starter/launch's ParseAck reads it.
// Written by hand to keep that key order.
func Ack(pid int, mode string) []byte {
	return []byte(`{"session_containment":1,"pid":` + strconv.Itoa(pid) + `,"mode":` + strconv.Quote(mode) + "}\n")
}

// Write writes v.Report, if any, as one line "session-starter: …" on
// standard error through [Diagnostics], and returns v. On Unix it never
// waits longer than reportWait for a launcher that does not read its end
// of standard error: what cannot be written by then is dropped (the
// ended status record, written before, says the same).
func Write(v starter.Verdict) starter.Verdict {
	if v.Report != "" {
		_, _ = Diagnostics(2).Write([]byte("session-starter: " + v.Report + "\n"))
	}
	return v
}
