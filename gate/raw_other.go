//go:build darwin || freebsd || (linux && portable)

package gate

import "errors"

// rawSupported reports false: the raw gate is Linux's, and the portable
// build takes the paths of macOS, whose gate is the re-executed binary.
func rawSupported() bool { return false }

// spawnRaw is never called where rawSupported is false.
func spawnRaw(Spec) (*Gate, error) {
	return nil, errors.New("gate: no raw gate on this platform")
}
