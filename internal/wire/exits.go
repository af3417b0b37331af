package wire

import (
	"errors"
	"syscall"
)

// Exit statuses of a gate that did not execute the Engine's program, the
// same from each form of the gate; the starter sees them only then.
const (
	// ExitNotReleased: the starter was gone before the go-ahead.
	ExitNotReleased = 125
	// ExitCannotExecute: the Engine's program exists but cannot be
	// executed, as a shell says it.
	ExitCannotExecute = 126
	// ExitNotFound: the Engine's program does not exist.
	ExitNotFound = 127
)

// ExitStatusFor is the status for an Engine program that could not be
// executed: [ExitNotFound] when it does not exist, else
// [ExitCannotExecute], as a shell says it.
func ExitStatusFor(err error) int {
	if errors.Is(err, syscall.ENOENT) || errors.Is(err, syscall.ENOTDIR) {
		return ExitNotFound
	}
	return ExitCannotExecute
}
