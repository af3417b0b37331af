package main

import (
	"io"

	"github.com/session-starter/session-starter/internal/sys"
)

// isTerminal reports whether w is a terminal (for --log-format auto).
func isTerminal(w io.Writer) bool {
	fd, ok := w.(fdWriter)
	if !ok {
		return false
	}
	return sys.IsTerminal(int(fd))
}
