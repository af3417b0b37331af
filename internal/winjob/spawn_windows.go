package winjob

import (
	"errors"
	"fmt"
	"syscall"

	"github.com/session-starter/session-starter/internal/sys"
)

// ErrNotInJob means the process could not be put into the job; it was
// terminated before it ran.
var ErrNotInJob = errors.New("the process could not be put into the session's job")

// Spec describes a process to create.
type Spec struct {
	// App is the program, a full path.
	App string
	// CmdLine is the whole command line, argv[0] included, as the
	// program will read it from GetCommandLineW.
	CmdLine string
	// Env is the environment, "KEY=value" each.
	Env []string
	// Stdin, Stdout and Stderr are the process's standard handles; each
	// must be inheritable, or 0 for none.
	Stdin, Stdout, Stderr sys.Handle
	// Flags are creation flags added to CREATE_SUSPENDED.
	Flags uint32
}

// Process is a process created suspended in the job.
type Process struct {
	PID    int
	Handle sys.Handle
	thread sys.Handle
	// ViaAttribute reports whether the process was created in the job
	// (PROC_THREAD_ATTRIBUTE_JOB_LIST) rather than assigned to it while
	// suspended.
	ViaAttribute bool
}

// Resume lets the process's first thread run.
func (p *Process) Resume() error {
	return sys.ResumeThread(p.thread)
}

// Close closes the handles to the process; it does not end it.
func (p *Process) Close() { sys.CloseHandles(&p.thread, &p.Handle) }

// ExitCode returns the process's exit code once it has exited.
func (p *Process) ExitCode() (uint32, error) {
	return sys.GetExitCodeProcess(p.Handle)
}

// StartSuspended creates the process described by s, suspended, in the
// job: inside it from its creation where the system takes the job list
// attribute, else assigned to it before its first thread is resumed. It
// inherits every inheritable handle of this process, as a direct launch
// would; handles of this package never are.
//
// A process that cannot be put into the job is terminated and
// StartSuspended returns an error wrapping [ErrNotInJob]. An error from
// CreateProcess is returned as an [*os.SyscallError].
func (j *Job) StartSuspended(s Spec) (*Process, error) {
	p, err := j.start(s, true)
	if errors.Is(err, sys.ERROR_INVALID_PARAMETER) || errors.Is(err, sys.ERROR_NOT_SUPPORTED) {
		// A system before Windows 10 does not know the attribute.
		return j.start(s, false)
	}
	return p, err
}

// start creates the process suspended: in the job if inJob (the job list
// attribute), else outside it and then assigned before its first thread
// runs; one that cannot be assigned is terminated while still suspended.
func (j *Job) start(s Spec, inJob bool) (*Process, error) {
	app, err := syscall.UTF16PtrFromString(s.App)
	if err != nil {
		return nil, fmt.Errorf("program %q: %w", s.App, err)
	}
	cmd, err := syscall.UTF16FromString(s.CmdLine)
	if err != nil {
		return nil, fmt.Errorf("command line: %w", err)
	}
	env, err := envBlock(s.Env)
	if err != nil {
		return nil, err
	}
	var job *sys.Handle
	if inJob {
		// The attribute list holds a pointer to j.h, which lives in j
		// until CreateProcess has returned.
		job = &j.h
	}
	// bInheritHandles: the launcher's inheritable handles reach the
	// Engine, as they would without us; ours are all created
	// non-inheritable.
	flags := s.Flags | sys.CREATE_SUSPENDED | sys.CREATE_UNICODE_ENVIRONMENT
	pid, process, thread, err := sys.CreateProcess(app, cmd, env, s.Stdin, s.Stdout, s.Stderr, flags, job)
	if err != nil {
		return nil, err
	}
	p := &Process{PID: pid, Handle: process, thread: thread, ViaAttribute: inJob}
	if inJob {
		return p, nil
	}
	if err := j.Assign(p.Handle); err != nil {
		// Still suspended: it has run no instruction of its own.
		_ = sys.TerminateProcess(p.Handle, 1)
		_, _ = sys.WaitForSingleObject(p.Handle, sys.INFINITE)
		p.Close()
		return nil, fmt.Errorf("%w: %w", ErrNotInJob, err)
	}
	return p, nil
}

// envBlock makes a CreateProcess environment block: each "KEY=value" and
// a NUL, then one more NUL.
func envBlock(env []string) ([]uint16, error) {
	var b []uint16
	for _, kv := range env {
		u, err := syscall.UTF16FromString(kv)
		if err != nil {
			return nil, fmt.Errorf("environment variable %q: %w", kv, err)
		}
		b = append(b, u...)
	}
	if len(b) == 0 {
		b = append(b, 0)
	}
	return append(b, 0), nil
}
