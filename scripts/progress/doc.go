// Command progress reads `go test -json` on its standard input and prints
// what a person waiting for the tests needs: each package's result line
// as it ends, the whole output of each test that failed, a line of
// progress whenever nothing was printed for 20 seconds, and a summary. It
// exits 1 when a package failed (or did not build), 0 otherwise.
//
// The load average (Linux's /proc/loadavg) is printed before and after:
// the tests' timing depends on it.
//
//	go test -json ./... | go run ./scripts/progress
package main
