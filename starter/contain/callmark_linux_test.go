//go:build linux && !portable

package contain

import (
	"os"
	"testing"
)

// BenchmarkTheCallsMarkWhenItLeftNoOrphan is what the call's own mark
// adds to a call that left no orphan: its id, its entry in the
// environment, and at the end the look at the children of this process
// and of its ancestors (the leader's start is this process's here).
func BenchmarkTheCallsMarkWhenItLeftNoOrphan(b *testing.B) {
	env := os.Environ()
	for b.Loop() {
		_, m := newCallMark(env)
		if got := m.orphans(os.Getpid(), -1, nil); got != nil {
			b.Fatalf("orphans() = %v, want none", got)
		}
	}
}
