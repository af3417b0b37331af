//go:build !linux && !darwin && !freebsd

package guard

import (
	"errors"
	"os"
)

// guardMain is the guard side; on this platform there is none yet, and it
// exits at once, refusing to arm.
func guardMain([]string) { os.Exit(exitRefused) }

// Probe reports that no binary plays the guard here.
func Probe(string) error { return errors.ErrUnsupported }
