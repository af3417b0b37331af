//go:build !linux

package main

import "io"

// isTerminal reports false: console output is chosen with
// --log-format console on platforms other than Linux.
func isTerminal(io.Writer) bool { return false }
