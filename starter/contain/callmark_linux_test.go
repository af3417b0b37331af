//go:build linux && !portable

package contain

import (
	"os"
	"syscall"
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
		if got, err := m.orphans(os.Getpid()); got != nil || err != nil {
			b.Fatalf("orphans() = %v, %v; want none", got, err)
		}
	}
}

// TestALookForOrphansThatCannotReadIsAnError: with no descriptor to
// spare, the look for a call's orphans fails with an error (which a
// Killed call's Wait wraps in ErrSurvivors), never an empty success.
func TestALookForOrphansThatCannotReadIsAnError(t *testing.T) {
	_, m := newCallMark(os.Environ())
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil {
		t.Fatal(err)
	}
	none := rl
	none.Cur = 0 // every open fails with EMFILE; open descriptors stay
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &none); err != nil {
		t.Fatal(err)
	}
	got, err := m.orphans(os.Getpid())
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil {
		t.Fatal(err)
	}
	if err == nil || got != nil {
		t.Fatalf("orphans() with no descriptor to spare = %v, %v; want an error", got, err)
	}
}
