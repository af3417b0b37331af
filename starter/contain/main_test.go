package contain

import (
	"os"
	"testing"

	"github.com/session-starter/session-starter/internal/testproc"
	"github.com/session-starter/session-starter/starter"
)

// The test binary plays the hidden modes, as a Go Engine's binary does
// with IfRequested first in main: a copy of it is an installed
// session-starter of this protocol. It also plays the helper roles of
// the calls' tests.
func TestMain(m *testing.M) {
	testproc.RunHelper()
	starter.RunHidden(os.Args)
	os.Exit(testproc.CheckHelpersUsed(m.Run()))
}
