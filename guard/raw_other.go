//go:build darwin || freebsd || (linux && portable)

package guard

import "errors"

// rawSupported reports false: the raw guard is Linux's, and the portable
// build takes the paths of macOS, whose guard is the re-executed binary.
func rawSupported() bool { return false }

// spawnRaw is never called where rawSupported is false.
func spawnRaw(Spec) (*Guard, error) {
	return nil, errors.New("guard: no raw guard on this platform")
}
