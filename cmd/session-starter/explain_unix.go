//go:build unix

package main

import (
	"errors"
	"os"
	"syscall"

	"github.com/session-starter/session-starter/internal/sys"
	"github.com/session-starter/session-starter/internal/wire"
)

// lookProgram finds program as a session does (sys.Resolve), with
// the status a session would exit with where it is not there.
func lookProgram(program string) (string, int, error) {
	path, pathSet := os.LookupEnv("PATH")
	found, err := sys.Resolve(program, path, pathSet)
	if errors.Is(err, syscall.ENOENT) {
		return "", wire.ExitNotFound, err
	}
	if err != nil {
		return "", wire.ExitCannotExecute, err
	}
	return found, 0, nil
}
