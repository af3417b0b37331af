package wire

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
