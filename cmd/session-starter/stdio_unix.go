//go:build unix

package main

import (
	"io"

	"github.com/session-starter/session-starter/internal/exit"
	"github.com/session-starter/session-starter/internal/sys"
)

// fdWriter writes to a descriptor with plain write(2) calls. A write of an
// *os.File to descriptor 1 or 2 that fails with EPIPE kills the process
// with SIGPIPE (os/file_unix.go, epipecheck) unless SIGPIPE is notified;
// a plain write returns the error instead. So a launcher that stops
// reading session-starter's stderr or stdout costs it its reports, never
// the session. Nothing is notified, so the Engine's SIGPIPE disposition is
// what the Go runtime leaves any child: the default.
type fdWriter int

func (w fdWriter) Write(p []byte) (int, error) {
	if err := sys.WriteAll(int(w), p); err != nil {
		return 0, err
	}
	return len(p), nil
}

// stdio returns the writers for standard output and standard error.
func stdio() (stdout, stderr io.Writer) { return fdWriter(1), fdWriter(2) }

// diagnosticsTo is where the diagnostics written for w go: for a
// descriptor of this process, only while it has room (exit.Diagnostics).
func diagnosticsTo(w io.Writer) io.Writer {
	if fd, ok := w.(fdWriter); ok {
		return exit.Diagnostics(int(fd))
	}
	return w
}

// isTerminal reports whether w is a terminal (for --log-format auto).
func isTerminal(w io.Writer) bool {
	fd, ok := w.(fdWriter)
	return ok && sys.IsTerminal(int(fd))
}
