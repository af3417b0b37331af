//go:build !linux && !darwin && !freebsd

package proc

import (
	"errors"
	"fmt"
)

var errUnsupported = fmt.Errorf("proc: /proc is read on Linux only: %w", errors.ErrUnsupported)

// ReadStat is not supported on this platform.
func ReadStat(int) (Stat, error) { return Stat{}, errUnsupported }

// LiveMembers is not supported on this platform.
func LiveMembers(int) ([]Stat, error) { return nil, errUnsupported }

// UID is not supported on this platform; it returns -1.
func UID(int) int { return -1 }

// OpenFDs is not supported on this platform.
func OpenFDs() ([]int, error) { return nil, errUnsupported }

// SameNamespace is not supported on this platform.
func SameNamespace() error { return errUnsupported }
