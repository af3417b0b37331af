//go:build !windows

package launch

import (
	"os"
	"os/exec"
	"strconv"
	"syscall"
)

// passedFD is the descriptor number at which session-starter gets f, the
// n-th file passed after stdio (0-based).
func passedFD(_ *os.File, n int) string { return strconv.Itoa(3 + n) }

// passFiles passes files to session-starter at descriptors 3, 4, …
func passFiles(cmd *exec.Cmd, files []*os.File) error {
	cmd.ExtraFiles = files
	return nil
}

// stopStarter asks session-starter to end the session: SIGTERM.
func stopStarter(p *os.Process, _ *os.File) error {
	return p.Signal(syscall.SIGTERM)
}
