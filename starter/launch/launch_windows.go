package launch

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"syscall"
)

// passedFD is the handle value at which session-starter gets f: an
// inherited handle keeps its value.
func passedFD(f *os.File, _ int) string { return strconv.FormatUint(uint64(f.Fd()), 10) }

// passFiles makes each file's handle inheritable and passes it to
// session-starter only (PROC_THREAD_ATTRIBUTE_HANDLE_LIST, through
// SysProcAttr.AdditionalInheritedHandles); session-starter hands on to the
// Engine all but its control and status handles.
func passFiles(cmd *exec.Cmd, files []*os.File) error {
	if len(files) == 0 {
		return nil
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{} // Start's own, fresh Cmd
	for _, f := range files {
		h := syscall.Handle(f.Fd())
		if err := syscall.SetHandleInformation(h, syscall.HANDLE_FLAG_INHERIT, syscall.HANDLE_FLAG_INHERIT); err != nil {
			return fmt.Errorf("pass %s: %w", f.Name(), os.NewSyscallError("SetHandleInformation", err))
		}
		cmd.SysProcAttr.AdditionalInheritedHandles = append(cmd.SysProcAttr.AdditionalInheritedHandles, h)
	}
	return nil
}

// stopStarter asks session-starter to end the session. Windows has no
// SIGTERM to send another process: closing the control pipe is the stop
// (the job is terminated and the Engine's status mirrored); without one,
// session-starter is terminated, and its kill-on-close job ends the
// Engine's tree, but the Engine's status is lost.
func stopStarter(p *os.Process, control *os.File) error {
	if control != nil && control.Close() == nil {
		return nil
	}
	return p.Kill()
}
