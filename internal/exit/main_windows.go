package exit

import (
	"context"
	"io"
	"os"

	"github.com/session-starter/session-starter/internal/sys"
	"github.com/session-starter/session-starter/starter"
)

// Main runs a session as the session-starter process does and returns
// what the process must do at the end (see [Apply]). On top of
// [starter.Run] it writes the ack line to standard output when ack is set, points
// its own standard input and output at NUL once the Engine is resumed (so
// the launcher sees end of file on the Engine's output exactly when the
// Engine's tree has closed it), and writes each failure report as one
// plain line "session-starter: …" on standard error.
func Main(ctx context.Context, o starter.Options, ack bool) starter.Verdict {
	if ack {
		o.Ack = func(pid int, mode string) error {
			_, err := os.Stdout.Write(Ack(pid, mode))
			return err
		}
	}
	o.Released = releaseStdio
	res, err := starter.Run(ctx, o)
	return Write(res.Verdict(err))
}

// releaseStdio closes this process's standard input and output and puts
// NUL in their place. Where NUL cannot be opened they stay as they are,
// and the launcher sees end of file on them only when this process exits.
func releaseStdio() {
	null, err := os.OpenFile("NUL", os.O_RDWR, 0)
	if err != nil {
		return
	}
	for _, std := range []struct {
		id uint32
		f  **os.File
	}{{sys.STD_INPUT_HANDLE, &os.Stdin}, {sys.STD_OUTPUT_HANDLE, &os.Stdout}} {
		if err := sys.SetStdHandle(std.id, sys.Handle(null.Fd())); err != nil {
			continue
		}
		_ = (*std.f).Close()
		*std.f = null
	}
}

// Apply exits with v.Code. Windows has no signals to die of: a stop
// before the Engine ran exits 128+S, as the exit status table allows.
func Apply(v starter.Verdict) {
	os.Exit(v.Code)
}

// CatchStops returns nil: on Windows a session catches its console
// events itself.
func CatchStops() chan os.Signal { return nil }

// Uncatch does nothing on Windows (see [CatchStops]).
func Uncatch() {}

// Diagnostics is standard error itself here: its pipes cannot be polled
// for room.
func Diagnostics(int) io.Writer { return os.Stderr }
