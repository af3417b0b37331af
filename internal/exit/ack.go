package exit

import "strconv"

// Ack returns the acknowledgement line Main writes: one line of JSON with
// session_containment first, then the Engine's PID (also its group) and
// the containment mode, as package starter/launch's ParseAck reads it.
// Written by hand to keep that key order.
func Ack(pid int, mode string) []byte {
	return []byte(`{"session_containment":1,"pid":` + strconv.Itoa(pid) + `,"mode":` + strconv.Quote(mode) + "}\n")
}
