package main

import (
	"errors"
	"os/exec"

	"github.com/session-starter/session-starter/internal/wire"
)

// lookProgram finds program in PATH as exec.LookPath does, with the
// status a session would exit with where it is not there.
func lookProgram(program string) (string, int, error) {
	found, err := exec.LookPath(program)
	if errors.Is(err, exec.ErrNotFound) {
		return "", wire.ExitNotFound, err
	}
	if err != nil {
		return "", wire.ExitCannotExecute, err
	}
	return found, 0, nil
}
