//go:build !linux || portable

package contain

import (
	"fmt"
	"os"

	"github.com/session-starter/session-starter/internal/wire"
)

// helped: there is no spawn helper in this build (it needs pidfds and a
// subreaper); every call runs as this process's child.
type helped struct{ err error }

func (*Cmd) startViaHelper() (handled bool, err error) { return false, nil }
func (*helped) watch(*Cmd)                             {}
func (*helped) endReleased(*Cmd) error                 { return nil }
func (*helped) forget()                                {}

func init() { wire.Play(refuseHelper, helperMode) }

// refuseHelper refuses the spawn helper's mode, which this build does
// not play.
func refuseHelper([]string) {
	fmt.Fprintln(os.Stderr, "session-starter: this build plays no spawn helper")
	os.Exit(wire.ExitProtocol)
}
