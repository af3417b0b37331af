package ledger

import "errors"

// ErrOff is wrapped by the error of Dir (Linux) when no directory passes
// the checks, and of everything that needs the ledger where there is none:
// the ledger is off.
var ErrOff = errors.New("ledger: off")

// FileName is the name of session's record in the ledger's directory: the
// guard removes it by this name, relative to a descriptor of the
// directory.
func FileName(session string) string { return session + ".json" }
