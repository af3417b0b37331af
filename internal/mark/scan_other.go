//go:build !linux || portable

package mark

import (
	"errors"
	"fmt"
)

// Supported reports that no marked process is verified here.
const Supported = false

// Scan fails: here no process can be named by a handle that outlives its
// reading, so no mark is verified and nothing is signalled by one.
func Scan(ID, uint64, int, func(int) bool) ([]Found, []Left, error) {
	return nil, nil, fmt.Errorf("mark: no verified scan on this platform: %w", errors.ErrUnsupported)
}
