//go:build (linux && portable) || darwin || freebsd

package contain

// markLayer: where no marked process is verified (no pidfds), a call has
// no mark of its own; its orphans end with the session.
func (c *Cmd) markLayer() callLayer { return nil }
