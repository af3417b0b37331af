package sys

import (
	"errors"
	"slices"
	"syscall"
	"testing"
)

// TestDieResetsThenUnblocksThenRaises: the disposition is SIG_DFL before
// the signal is unblocked and sent (else the Go runtime's handler takes
// it), core dumps are off before all, and a failing step does not stop
// the next (SIGKILL can be neither reset nor blocked).
func TestDieResetsThenUnblocksThenRaises(t *testing.T) {
	var calls []string
	step := func(name string, err error) func(syscall.Signal) error {
		return func(sig syscall.Signal) error {
			if sig != syscall.SIGTERM {
				t.Errorf("%s got signal %d, want %d", name, sig, syscall.SIGTERM)
			}
			calls = append(calls, name)
			return err
		}
	}
	done := make(chan struct{})
	go func() { // die locks the thread it runs on: not the test's
		defer close(done)
		die(syscall.SIGTERM, deathSteps{
			noCore:  func() { calls = append(calls, "noCore") },
			reset:   step("reset", errors.New("EINVAL")),
			unblock: step("unblock", errors.New("EINVAL")),
			raise:   step("raise", nil),
		})
	}()
	<-done
	if want := []string{"noCore", "reset", "unblock", "raise"}; !slices.Equal(calls, want) {
		t.Fatalf("die made the calls %q, want %q", calls, want)
	}
}
