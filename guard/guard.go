package guard

import (
	"errors"

	"github.com/session-starter/session-starter/internal/wire"
)

// Arg is the first argument that selects the hidden guard mode, with the
// protocol of this version ([wire.HiddenArg]).
var Arg = wire.HiddenArg("guard")

// Comm is the command name (/proc/PID/comm) of the guard.
const Comm = "session-guard"

// Invoked reports whether args (os.Args) asks for the guard mode, the
// guard proper after the porch or the pin, of any protocol: [Main]
// refuses another than its own.
func Invoked(args []string) bool {
	if len(args) < 2 {
		return false
	}
	name, _, ok := wire.ParseHidden(args[1])
	return ok && (name == "guard" || name == "guard-end" || name == "pin")
}

// exitRefused is the exit status of a guard that refused to arm (its
// reason went to the starter as "refused CODE"), or of the guard mode on
// a platform that has none.
const exitRefused = 2

// ErrRefused is wrapped by Arm's error when the guard refused to arm.
var ErrRefused = errors.New("guard refused to arm")
