package gate

import (
	"syscall"

	"github.com/session-starter/session-starter/internal/sys"
)

// spawn forks and executes the gate as the leader of a new process group
// and returns its PID with a pidfd from the clone, which names the gate
// from its first instruction on.
func spawn(exe string, argv []string, files []uintptr) (pid, pidfd int, err error) {
	pidfd = -1
	pid, err = syscall.ForkExec(exe, argv, &syscall.ProcAttr{
		Env:   []string{},
		Files: files,
		Sys:   &syscall.SysProcAttr{Setpgid: true, PidFD: &pidfd},
	})
	return pid, pidfd, err
}

// writeSpec returns a close-on-exec memfd holding the Engine's program,
// argv and environment (encodeSpec).
func writeSpec(spec Spec) (int, error) {
	fd, err := sys.MemfdCreate("session-starter-gate")
	if err != nil {
		return -1, err
	}
	if err := sys.WriteAll(fd, encodeSpec(spec)); err != nil {
		sys.Close(fd)
		return -1, err
	}
	return fd, nil
}
