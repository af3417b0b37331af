//go:build !linux && !windows && !darwin && !freebsd

package starter

import (
	"context"
	"errors"
	"fmt"
	"os"
)

// Run is not supported on this platform (Linux, macOS, FreeBSD and
// Windows are): it returns an error with exit status 125 and starts
// nothing.
func Run(context.Context, Options) (Result, error) {
	return Result{}, fail(ExitContainment, "unsupported on this platform: %w", errors.ErrUnsupported)
}

// Main reports that sessions are not supported on this platform.
func Main(ctx context.Context, o Options, ack bool) Verdict {
	_, err := Run(ctx, o)
	return report(Verdict{Code: ExitCode(err), Report: err.Error()})
}

func report(v Verdict) Verdict {
	if v.Report != "" {
		fmt.Fprintf(os.Stderr, "session-starter: %s\n", v.Report)
	}
	return v
}

// Apply exits with v.Code; dying of a signal is not mirrored here.
func (v Verdict) Apply() {
	if v.Signal != 0 && v.Code == 0 {
		os.Exit(128 + int(v.Signal))
	}
	os.Exit(v.Code)
}
