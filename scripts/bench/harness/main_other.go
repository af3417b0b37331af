//go:build !linux

// The harness times session-starter on Linux only; see main_linux.go.

package main

import (
	"fmt"
	"os"
)

func main() {
	fmt.Fprintln(os.Stderr, "harness: the benchmarks run on Linux only")
	os.Exit(2)
}
