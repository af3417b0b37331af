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
	deadline := time.Now().Add(TooLong)
	pause := time.Millisecond
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("after %v: %s", TooLong, what)
		}
		time.Sleep(pause)
		pause = min(2*pause, 100*time.Millisecond)
	}
}
