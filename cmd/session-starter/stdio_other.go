//go:build !linux

package main

import (
	"io"
	"os"
)

// stdio returns the writers for standard output and standard error.
func stdio() (stdout, stderr io.Writer) { return os.Stdout, os.Stderr }
