//go:build !linux && !windows && !darwin && !freebsd

package exit

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/session-starter/session-starter/starter"
)

// Main reports that sessions are not supported on this platform.
func Main(ctx context.Context, o starter.Options, _ bool) starter.Verdict {
	res, err := starter.Run(ctx, o)
	return Write(res.Verdict(err))
}

// Write writes v.Report, if any, as one line "session-starter: …" on
// standard error, and returns v.
func Write(v starter.Verdict) starter.Verdict {
	if v.Report != "" {
		fmt.Fprintf(os.Stderr, "session-starter: %s\n", v.Report)
	}
	return v
}

// Apply exits with v.Code; dying of a signal is not mirrored here.
func Apply(v starter.Verdict) {
	if v.Signal != 0 && v.Code == 0 {
		os.Exit(128 + int(v.Signal))
	}
	os.Exit(v.Code)
}

// CatchStops returns nil: no session here has stop signals.
func CatchStops() chan os.Signal { return nil }

// Uncatch does nothing here (see [CatchStops]).
func Uncatch() {}

// Diagnostics is standard error itself here: its pipes cannot be polled
// for room.
func Diagnostics(int) io.Writer { return os.Stderr }
