// Command floor is the Go floor of the start-up benchmarks: a Go program
// that runs its arguments as a command with os/exec in a process group
// of its own and waits for it, exiting with its status. It holds nothing
// a session holds; what session-starter costs beyond it is what the
// session's promise costs.
package main
