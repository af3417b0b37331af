//go:build linux && (amd64 || arm64)

package rlimit

// getNofile reads RLIMIT_NOFILE into lim with prlimit64(0, RLIMIT_NOFILE,
// NULL, lim) and returns the raw result (0 or a negated errno). It is in
// assembly because package syscall may not be imported here: that would
// run its init, which raises the limit, before this package's.
//
//go:noescape
func getNofile(lim *Limit) int64

func init() {
	var lim Limit
	if getNofile(&lim) == 0 {
		original, recorded = lim, true
	}
}
