package winjob

import (
	"fmt"
	"syscall"

	"github.com/session-starter/session-starter/internal/end"
	"github.com/session-starter/session-starter/internal/proc"
	"github.com/session-starter/session-starter/internal/sys"
)

// KindJob names a job in an end's report.
const KindJob end.Kind = "job"

// Stop is the stop signal a [Holder] sends: CTRL_BREAK_EVENT, which a Go
// program sees as os.Interrupt.
const Stop = syscall.SIGINT

// Holder is a job as package end holds it: every process of a session,
// or of a call. [end.End] waits on the job's completion port.
type Holder struct {
	Job *Job
	// Group is the console process group [Stop] goes to: the Engine's
	// PID, created with CREATE_NEW_PROCESS_GROUP. Zero means none.
	Group int
	// Code is the exit code TerminateJobObject gives the processes.
	Code uint32
}

// Traits implements [end.Holder]: the job holds the whole session. Its
// stop signal reaches one console group, not every member at once.
func (h *Holder) Traits() end.Traits { return end.Traits{Kind: KindJob, Whole: true} }

// Signal implements [end.Holder]: SIGKILL terminates the job
// (TerminateJobObject, with Code), which reaches nothing but the
// processes started in it; [Stop] sends CTRL_BREAK_EVENT to Group. The event needs a console shared with
// that group; where it cannot be sent, or for any other signal, the
// error wraps [end.ErrUnsendable].
func (h *Holder) Signal(sig syscall.Signal) error {
	switch {
	case sig == syscall.SIGKILL:
		return sys.TerminateJobObject(h.Job.h, h.Code)
	case sig != Stop || h.Group == 0:
		return fmt.Errorf("%w: %v to a job's console process group %d", end.ErrUnsendable, sig, h.Group)
	}
	if err := sys.GenerateConsoleCtrlEvent(sys.CTRL_BREAK_EVENT, h.Group); err != nil {
		return fmt.Errorf("%w: %w", end.ErrUnsendable, err)
	}
	return nil
}

// Live implements [end.Holder]: the job's processes, by ID (at most
// 1024), or none once it counts no active process (its list may
// still name an exited process whose handle is open). Its members have
// no state or user that a job tells: state 'R', uid -1.
func (h *Holder) Live() ([]end.Member, error) {
	if n, err := sys.JobActiveProcesses(h.Job.h); err != nil || n == 0 {
		return nil, err
	}
	pids, err := h.Job.PIDs()
	if err != nil {
		return nil, err
	}
	ms := make([]end.Member, len(pids))
	for i, pid := range pids {
		ms[i] = end.Member{Stat: proc.Stat{PID: pid, State: 'R'}, UID: -1}
	}
	return ms, nil
}

// Notify implements [end.Holder]: the job's completion port gets a packet
// when a process joins or exits, and when none is left.
func (h *Holder) Notify() sys.Handle { return h.Job.port }
