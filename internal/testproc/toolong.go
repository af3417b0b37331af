package testproc

import (
	"testing"
	"time"
)

// TooLong bounds every "eventually" in tests: sessions end in
// milliseconds, two noisy cores running the race detector can stretch that
// a hundredfold, and a real hang still fails well inside the test timeout.
const TooLong = 60 * time.Second

// Eventually polls cond with a growing pause until it holds, or fails the
// test after TooLong.
func Eventually(t testing.TB, what string, cond func() bool) {
	t.Helper()
	if !poll(TooLong, cond) {
		t.Fatalf("after %v: %s", TooLong, what)
	}
}

// poll calls done with a growing pause, from 1 ms to 100 ms, until it
// returns true or wait has passed, and reports whether it did. done is
// called once more after the deadline.
func poll(wait time.Duration, done func() bool) bool {
	deadline := time.Now().Add(wait)
	pause := time.Millisecond
	for !done() {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(pause)
		pause = min(2*pause, 100*time.Millisecond)
	}
	return true
}
