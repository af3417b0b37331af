package testproc

import "time"

// TooLong bounds every "eventually" in tests: sessions end in
// milliseconds, two noisy cores running the race detector can stretch that
// a hundredfold, and a real hang still fails well inside the test timeout.
const TooLong = 60 * time.Second
