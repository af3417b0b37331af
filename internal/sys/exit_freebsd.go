package sys

import "golang.org/x/sys/unix"

// noteExit asks for the exit; FreeBSD puts the wait status in the event's
// data.
const noteExit = unix.NOTE_EXIT
