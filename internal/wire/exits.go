package wire

import (
	"errors"
	"syscall"
)

// Exit statuses of session-starter and of its helpers, each declared
// once. The gate exits with ExitNotReleased, ExitCannotExecute or
// ExitNotFound only when it did not execute the Engine's program.
const (
	// ExitUsage: bad command line or descriptor; nothing was started.
	ExitUsage = 2
	// ExitTimeout: --timeout fired before the Engine's exit was seen.
	ExitTimeout = 124
	// ExitContainment: containment could not be established (nothing was
	// executed), the guard was lost, or members survived the kill budget.
	ExitContainment = 125
	// ExitNotReleased: the gate's starter was gone before the go-ahead.
	ExitNotReleased = ExitContainment
	// ExitProtocol: a hidden mode refused another protocol, as any
	// containment failure.
	ExitProtocol = ExitContainment
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
