package winjob

import (
	"math"
	"runtime"
	"time"

	"github.com/session-starter/session-starter/internal/sys"
	"github.com/session-starter/session-starter/starter/launch"
)

// keyJob is the completion key of the job's own packets.
const keyJob = 1

// Job is a kill-on-close job object with its completion port.
type Job struct {
	h    sys.Handle
	port sys.Handle
}

// New makes a job whose processes all end when its last handle is closed
// and which allows no breakaway. Its handle is not inheritable, so no
// process of the session can keep the job, and itself, alive.
func New() (*Job, error) {
	h, err := sys.CreateJobObject()
	if err != nil {
		return nil, err
	}
	j := &Job{h: h}
	// Only this flag: without JOB_OBJECT_LIMIT_BREAKAWAY_OK and
	// JOB_OBJECT_LIMIT_SILENT_BREAKAWAY_OK no member can start a process
	// outside the job, CREATE_BREAKAWAY_FROM_JOB or not.
	err = sys.SetJobLimits(h, sys.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE, 0, 0)
	// The port is associated before any process joins, so that the
	// emptiness notification cannot be missed.
	if err == nil {
		j.port, err = sys.CreateIoCompletionPort(1)
	}
	if err == nil {
		err = sys.AssociateJobCompletionPort(h, j.port, keyJob)
	}
	if err != nil {
		j.Close()
		return nil, err
	}
	return j, nil
}

// Close closes the job's handles. If this was the last handle to the
// job, every process still in it is terminated by the system.
func (j *Job) Close() { sys.CloseHandles(&j.port, &j.h) }

// PIDs returns the IDs of the processes in the job, at most 1024. The
// IDs name members only while they are members: for a report, never for
// signalling.
func (j *Job) PIDs() ([]int, error) {
	return sys.JobProcessIDs(j.h)
}

// Limit sets l on the job, keeping it kill-on-close: MaxTasks as the
// most processes it may hold at once (ActiveProcessLimit: a process
// created in it beyond that fails), MaxMemory as the most memory its
// processes may commit together (JobMemoryLimit: an allocation beyond it
// fails), MaxCPU as a hard cap of its CPU rate (in ten-thousandths of the
// whole machine). MaxSwap and Calls are not the job's. A limit the
// system refuses is an error: nothing is applied silently.
func (j *Job) Limit(l launch.Limits) error {
	if l.MaxTasks > 0 || l.MaxMemory > 0 {
		if err := sys.SetJobLimits(j.h, sys.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE, uint32(l.MaxTasks), uintptr(l.MaxMemory)); err != nil {
			return err
		}
	}
	if l.MaxCPU > 0 {
		if err := sys.SetJobCPURate(j.h, CPURate(l.MaxCPU, runtime.NumCPU())); err != nil {
			return err
		}
	}
	return nil
}

// CPURate is the CPU rate of cpus CPUs on a machine of n: ten-thousandths
// of the whole machine's time, 1 at least and 10000 at most.
func CPURate(cpus float64, n int) uint32 {
	r := math.Round(cpus / float64(max(n, 1)) * 10000)
	return uint32(min(max(r, 1), 10000))
}

// Usage is what the job counted of every process it has held: their CPU
// time and the peak memory they committed together, each with the source
// "job". It is empty under Wine, which accounts no job time.
func (j *Job) Usage() (launch.Usage, error) {
	cpu, peak, err := sys.JobUsage(j.h)
	if err != nil || sys.UnderWine() {
		return launch.Usage{}, err
	}
	u := launch.Usage{MemoryPeakBytes: new(int64(peak)), MemoryPeakSource: "job"}
	u.SetCPU(time.Duration(cpu)*100, "job")
	return u, nil
}

// Assign puts a process into the job (AssignProcessToJobObject). A
// process created suspended is assigned before its first instruction.
func (j *Job) Assign(process sys.Handle) error {
	return sys.AssignProcessToJobObject(j.h, process)
}

// Release clears the job's kill-on-close: closing its handles then ends
// nothing, and what it holds stays in the jobs around it.
func (j *Job) Release() error {
	return sys.SetJobLimits(j.h, 0, 0, 0)
}
