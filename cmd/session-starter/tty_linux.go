package main

import (
	"io"

	"golang.org/x/sys/unix"
)

// isTerminal reports whether w is a terminal (for --log-format auto).
func isTerminal(w io.Writer) bool {
	fd, ok := w.(fdWriter)
	if !ok {
		return false
	}
	_, err := unix.IoctlGetTermios(int(fd), unix.TCGETS)
	return err == nil
}
