//go:build (linux && portable) || darwin || freebsd

package contain

import "github.com/session-starter/session-starter/internal/end"

// callMark: where no marked process is verified (no pidfds), a call has
// no mark of its own; its orphans end with the session.
type callMark struct{}

func newCallMark(env []string) ([]string, *callMark)                       { return env, nil }
func callMarkOf([]string) *callMark                                        { return nil }
func (*callMark) holder() end.Holder                                       { return nil }
func (*callMark) orphans(int, int, []*end.Process) ([]*end.Process, error) { return nil, nil }
