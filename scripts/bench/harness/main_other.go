//go:build !linux

// Command harness times session-starter on Linux; see main_linux.go.
package main

import (
	"fmt"
	"os"
)

func main() {
	fmt.Fprintln(os.Stderr, "harness: the benchmarks run on Linux only")
	os.Exit(2)
}
