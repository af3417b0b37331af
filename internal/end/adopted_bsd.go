//go:build darwin || freebsd

package end

import (
	"errors"
)

// childrenOfProcess is Linux's; here the escapees are signalled without
// their descendants, which are adopted and signalled as they lose their
// parents.
func childrenOfProcess(int) ([]int, error) {
	return nil, errors.ErrUnsupported
}

// openDescendant is Linux's: see childrenOfProcess.
func openDescendant(int, int, []int) (adoptedChild, bool) { return adoptedChild{}, false }
