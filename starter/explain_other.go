//go:build !linux && !windows && !darwin && !freebsd

package starter

import (
	"errors"

	"github.com/session-starter/session-starter/internal/wire"
	"github.com/session-starter/session-starter/starter/launch"
)

// ExplainContainment fails as Run does here: sessions are not supported
// on this platform.
func ExplainContainment(launch.Containment) (mode string, why, err error) {
	return "", nil, fail(wire.ExitContainment, "unsupported on this platform: %w", errors.ErrUnsupported)
}

// ExplainLimits fails as Run does here: sessions are not supported on
// this platform.
func ExplainLimits(Limits, string) (move bool, err error) {
	return false, fail(wire.ExitContainment, "unsupported on this platform: %w", errors.ErrUnsupported)
}
