package sys

import "golang.org/x/sys/unix"

// noteExit asks for the exit with its wait status in the event's data,
// which macOS gives only with NOTE_EXITSTATUS, and only to the parent.
const noteExit = unix.NOTE_EXIT | unix.NOTE_EXITSTATUS
