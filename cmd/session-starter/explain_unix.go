//go:build unix

package main

import (
	"os"

	"github.com/session-starter/session-starter/internal/sys"
	"github.com/session-starter/session-starter/internal/wire"
)

// lookProgram finds program as a session does (sys.Resolve), with
// the status a session would exit with where it is not there
// (wire.ExitStatusFor: 127 not found, 126 not executable).
func lookProgram(program string) (string, int, error) {
	path, pathSet := os.LookupEnv("PATH")
	found, err := sys.Resolve(program, path, pathSet)
	if err != nil {
		return "", wire.ExitStatusFor(err), err
	}
	return found, 0, nil
}
