//go:build darwin || freebsd

package gate

import (
	"fmt"
	"os"
	"syscall"

	"github.com/session-starter/session-starter/internal/sys"
)

// spawn forks and executes the gate as the leader of a new process group
// and returns its PID with a kqueue that tells its exit. The kqueue's
// filter is registered by number after the fork: safe, because the gate
// is this process's child and nobody else reaps it, so the number names
// the gate (or its zombie) until this process reaps it.
func spawn(exe string, argv []string, files []uintptr) (pid, fd int, err error) {
	pid, err = syscall.ForkExec(exe, argv, &syscall.ProcAttr{
		Env:   []string{},
		Files: files,
		Sys:   &syscall.SysProcAttr{Setpgid: true},
	})
	if err != nil {
		return 0, -1, err
	}
	fd, err = sys.WatchChild(pid)
	if err != nil {
		// The gate is our unreaped child: its number is still its own.
		_ = sys.SignalChild(pid, -1, syscall.SIGKILL)
		var ws syscall.WaitStatus
		_, _ = syscall.Wait4(pid, &ws, 0, nil)
		return 0, -1, fmt.Errorf("watch the gate: %w", err)
	}
	return pid, fd, nil
}

// writeSpec returns a close-on-exec descriptor of an unlinked temporary
// file holding the Engine's program, argv and environment (encodeSpec):
// macOS has no memfd, and a pipe could not take an Engine command line
// longer than its buffer before the gate reads it.
func writeSpec(spec Spec) (int, error) {
	f, err := os.CreateTemp("", "session-starter-gate-")
	if err != nil {
		return -1, err
	}
	defer f.Close()
	if err := os.Remove(f.Name()); err != nil {
		return -1, err
	}
	if _, err := f.Write(encodeSpec(spec)); err != nil {
		return -1, err
	}
	// A descriptor of our own, close-on-exec, that outlives f.
	fd, err := sys.DupCloseOnExec(int(f.Fd()), 3)
	if err != nil {
		return -1, err
	}
	return fd, nil
}
