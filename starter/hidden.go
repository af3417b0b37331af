package starter

import "github.com/session-starter/session-starter/internal/wire"

// RunHidden runs the hidden mode args (os.Args) asks for, and never
// returns then; it returns at once when args asks for none. The modes are
// those a starter starts from a session-starter binary (the gate, the
// guard and the guard's pin), and the spawn helper where package
// starter/contain is linked. A binary that plays these modes calls it
// first thing in main: session-starter's own main does, and so does a Go
// Engine's contain.IfRequested.
//
// The first argument names the mode and the protocol the starter speaks
// (the command lines, descriptors and messages of the hidden modes). A
// mode of another protocol than this package's exits 125 without doing
// anything, the gate with a report on stderr that names both: a starter
// of one version never runs behind a helper of another.
func RunHidden(args []string) { wire.RunHidden(args) }
