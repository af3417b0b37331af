//go:build !linux

package proc

import (
	"errors"
	"fmt"
)

// PipeHolders is not supported on this platform: no /proc to read.
func PipeHolders(uint64) ([]int, error) {
	return nil, fmt.Errorf("proc: pipe holders are read from /proc on Linux only: %w", errors.ErrUnsupported)
}
