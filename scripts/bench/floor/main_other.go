//go:build !unix

package main

import (
	"fmt"
	"os"
)

func main() {
	fmt.Fprintln(os.Stderr, "floor: the start-up benchmarks run on Unix")
	os.Exit(2)
}
