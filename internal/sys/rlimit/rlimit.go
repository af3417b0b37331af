package rlimit

// Limit is a soft (Cur) and hard (Max) resource limit.
type Limit struct {
	Cur, Max uint64
}

// original is what init read; recorded is false where it could not.
var (
	original Limit
	recorded bool
)

// Original returns the RLIMIT_NOFILE this process had when it started,
// and false when it was not recorded.
func Original() (Limit, bool) {
	return original, recorded
}
