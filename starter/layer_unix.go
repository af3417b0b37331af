//go:build darwin || freebsd || linux

package starter

import (
	"github.com/session-starter/session-starter/gate"
	"github.com/session-starter/session-starter/guard"
	"github.com/session-starter/session-starter/internal/end"
	"github.com/session-starter/session-starter/starter/launch"
)

// A layer is one mechanism that holds a session besides group E: the
// session cgroup, the mark, the sweep by lineage, FreeBSD's reaper, the
// ledger record, the Engine's containers. Each acts only inside a step of run. At each step the
// session calls every layer of s.layers, in the list's order; close goes
// in the reverse order.
type layer interface {
	// born adds to the gate's spec what the Engine is born into. It may
	// run twice: a gate killed at birth is spawned again.
	born(gs *gate.Spec) error
	// hand adds to the guard's hand-off. The gate is spawned and not yet
	// ready: it is this process's unreaped child, so its PID names it.
	hand(s *session, gs *guard.Spec)
	// ready checks the layer once the gate is ready, while the guard
	// arms. An error fails the start: nothing was executed.
	ready(s *session) error
	// before acts, at the start of an end, through another program,
	// before the end signals anything. The plan's Total bounds it. An
	// error means the layer's part may be left.
	before(plan end.Plan) error
	// holders lists the layer's holders for the end.
	holders() []end.Holder
	// ended reads the layer's counters into u once the session has
	// ended or released what the Engine left (e.Outcome Released).
	ended(e End, u *launch.Usage)
	// close releases what the layer holds. It runs once, on every return
	// of run, and waits for nothing.
	close()
}

// noLayer is the steps a layer takes no part in, for embedding.
type noLayer struct{}

func (noLayer) born(*gate.Spec) error      { return nil }
func (noLayer) hand(*session, *guard.Spec) {}
func (noLayer) ready(*session) error       { return nil }
func (noLayer) before(end.Plan) error      { return nil }
func (noLayer) holders() []end.Holder      { return nil }
func (noLayer) ended(End, *launch.Usage)   {}
func (noLayer) close()                     {}
