//go:build !linux && !windows && !darwin && !freebsd

package starter

import (
	"context"
	"errors"

	"github.com/session-starter/session-starter/internal/wire"
)

// Run is not supported on this platform (Linux, macOS, FreeBSD and
// Windows are): it returns an error with exit status 125 and starts
// nothing.
func Run(context.Context, Options) (Result, error) {
	return Result{}, fail(wire.ExitContainment, "unsupported on this platform: %w", errors.ErrUnsupported)
}
