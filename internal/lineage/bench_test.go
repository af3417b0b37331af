//go:build darwin || freebsd || linux

package lineage

import "testing"

// BenchmarkAPassOver5000UnrelatedProcesses: one pass of the sweep over a
// table of 5,000 processes of which 10 are the session's, the mark
// unread (each environment is read once for the life of the sweep).
func BenchmarkAPassOver5000UnrelatedProcesses(b *testing.B) {
	snap := make([]Proc, 0, 5010)
	for i := range 5000 {
		p := mac(10000+i, uint64(5000+i), uint64(4000+i%500))
		p.Marked = func() (bool, bool) { return false, true }
		snap = append(snap, p)
	}
	parent := engine.Unique
	for i := range 10 {
		snap = append(snap, mac(200+i, 20000+uint64(i), parent))
		parent = 20000 + uint64(i)
	}
	tr := newTracker(engine, me)
	tr.Pass(snap) // the environments read once
	for b.Loop() {
		tr.Pass(snap)
	}
}
