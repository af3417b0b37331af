package contain

import (
	"os"
	"syscall"
)

// tree: contained calls are not built for Windows yet (a suspended spawn
// into a kill-on-close job of the call's own is the design); Start
// refuses with ErrNotSupported and nothing runs.
type tree struct{}

func conflict(*syscall.SysProcAttr) string { return "" }

func (c *Cmd) startTree() error        { return ErrNotSupported }
func (*tree) waitExit()                {}
func (*tree) exited() bool             { return true }
func (*tree) kill(*Cmd, *Result) error { return ErrNotSupported }
func (*tree) release() []int           { return nil }
func (*tree) close()                   {}
func pipeHolders(*os.File) []int       { return nil }

func (*tree) endReleased(*Cmd) error { return ErrNotSupported }
func (*tree) forget(bool)            {}
