package main

import (
	"io"
	"os"

	"github.com/session-starter/session-starter/internal/exit"
)

// stdio returns the writers for standard output and standard error.
func stdio() (stdout, stderr io.Writer) { return os.Stdout, os.Stderr }

// diagnosticsTo is where the diagnostics written for w go: standard
// error only while it has room where that can be polled (exit.Diagnostics).
func diagnosticsTo(w io.Writer) io.Writer {
	if w == io.Writer(os.Stderr) {
		return exit.Diagnostics(2)
	}
	return w
}

// isTerminal reports false: console output is chosen with
// --log-format console on Windows.
func isTerminal(io.Writer) bool { return false }
