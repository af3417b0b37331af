package starter

import (
	"github.com/session-starter/session-starter/gate"
	"github.com/session-starter/session-starter/guard"
)

// RunHidden runs the hidden mode args (os.Args) asks for — the gate, the
// guard or the guard's pin, which a starter starts from a session-starter
// binary — and never returns then; it returns at once when args asks for
// none. A binary that plays these modes calls it first thing in main:
// session-starter's own main does, and so does a Go Engine's contain.IfRequested.
//
// The first argument names the mode and the protocol the starter speaks
// (the command lines, descriptors and messages of the hidden modes). A
// mode of another protocol than this package's exits 125 without doing
// anything, the gate with a report on stderr that names both: a starter
// of one version never runs behind a helper of another.
func RunHidden(args []string) {
	switch {
	case gate.Invoked(args):
		gate.Main(args)
	case guard.Invoked(args):
		guard.Main(args)
	}
}
