package winjob

import (
	"errors"
	"os"
	"time"
	"unsafe"

	"golang.org/x/sys/windows"
)

// wakeKey is the completion key of the packet [Job.Wake] posts; the job's
// own packets carry keyJob.
const (
	keyJob  = 1
	wakeKey = 2
)

// jobAssociateCompletionPort is JOBOBJECT_ASSOCIATE_COMPLETION_PORT.
type jobAssociateCompletionPort struct {
	CompletionKey  uintptr
	CompletionPort windows.Handle
}

// jobBasicAccounting is JOBOBJECT_BASIC_ACCOUNTING_INFORMATION.
type jobBasicAccounting struct {
	TotalUserTime             int64
	TotalKernelTime           int64
	ThisPeriodTotalUserTime   int64
	ThisPeriodTotalKernelTime int64
	TotalPageFaultCount       uint32
	TotalProcesses            uint32
	ActiveProcesses           uint32
	TotalTerminatedProcesses  uint32
}

// Job is a kill-on-close job object with its completion port.
type Job struct {
	h    windows.Handle
	port windows.Handle
}

// New makes a job whose processes all end when its last handle is closed
// and which allows no breakaway. Its handle is not inheritable, so no
// process of the session can keep the job, and itself, alive.
func New() (*Job, error) {
	h, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return nil, os.NewSyscallError("CreateJobObject", err)
	}
	j := &Job{h: h}
	var limits windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION
	// Only this flag: without JOB_OBJECT_LIMIT_BREAKAWAY_OK and
	// JOB_OBJECT_LIMIT_SILENT_BREAKAWAY_OK no member can start a process
	// outside the job, CREATE_BREAKAWAY_FROM_JOB or not.
	limits.BasicLimitInformation.LimitFlags = windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE
	if _, err := windows.SetInformationJobObject(h, windows.JobObjectExtendedLimitInformation,
		uintptr(unsafe.Pointer(&limits)), uint32(unsafe.Sizeof(limits))); err != nil {
		j.Close()
		return nil, os.NewSyscallError("SetInformationJobObject", err)
	}
	// The port is associated before any process joins, so that the
	// emptiness notification cannot be missed.
	port, err := windows.CreateIoCompletionPort(windows.InvalidHandle, 0, 0, 1)
	if err != nil {
		j.Close()
		return nil, os.NewSyscallError("CreateIoCompletionPort", err)
	}
	j.port = port
	assoc := jobAssociateCompletionPort{CompletionKey: keyJob, CompletionPort: port}
	if _, err := windows.SetInformationJobObject(h, windows.JobObjectAssociateCompletionPortInformation,
		uintptr(unsafe.Pointer(&assoc)), uint32(unsafe.Sizeof(assoc))); err != nil {
		j.Close()
		return nil, os.NewSyscallError("SetInformationJobObject", err)
	}
	return j, nil
}

// Close closes the job's handles. If this was the last handle to the
// job, every process still in it is terminated by the system.
func (j *Job) Close() {
	if j.port != 0 {
		_ = windows.CloseHandle(j.port)
		j.port = 0
	}
	if j.h != 0 {
		_ = windows.CloseHandle(j.h)
		j.h = 0
	}
}

// Terminate ends every process of the job with exit code code
// (TerminateJobObject). The job holds only processes started in it, so
// this reaches nothing else.
func (j *Job) Terminate(code uint32) error {
	return os.NewSyscallError("TerminateJobObject", windows.TerminateJobObject(j.h, code))
}

// Active returns the number of processes in the job that have not
// exited.
func (j *Job) Active() (int, error) {
	var info jobBasicAccounting
	if err := windows.QueryInformationJobObject(j.h, windows.JobObjectBasicAccountingInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info)), nil); err != nil {
		return 0, os.NewSyscallError("QueryInformationJobObject", err)
	}
	return int(info.ActiveProcesses), nil
}

// maxListed bounds the process IDs [Job.PIDs] reads: enough to name
// survivors in a report, which lists at most a few dozen.
const maxListed = 1024

// PIDs returns the IDs of the processes in the job, at most maxListed.
// The IDs name members only while they are members: for a report, never
// for signalling.
func (j *Job) PIDs() ([]int, error) {
	// JOBOBJECT_BASIC_PROCESS_ID_LIST: two DWORD counts, then ULONG_PTRs.
	buf := make([]uintptr, 1+maxListed)
	if err := windows.QueryInformationJobObject(j.h, windows.JobObjectBasicProcessIdList,
		uintptr(unsafe.Pointer(&buf[0])), uint32(len(buf))*uint32(unsafe.Sizeof(buf[0])), nil); err != nil &&
		!errors.Is(err, windows.ERROR_MORE_DATA) {
		return nil, os.NewSyscallError("QueryInformationJobObject", err)
	}
	listed := int(*(*uint32)(unsafe.Pointer(uintptr(unsafe.Pointer(&buf[0])) + 4)))
	pids := make([]int, 0, listed)
	for _, p := range buf[1 : 1+min(listed, maxListed)] {
		pids = append(pids, int(p))
	}
	return pids, nil
}

// Wake makes a [Job.WaitEmpty] that is wakeable return false at once.
func (j *Job) Wake() {
	_ = windows.PostQueuedCompletionStatus(j.port, 0, wakeKey, nil)
}

// WaitEmpty waits until the job's port tells that it has no active
// process, until deadline, or, when wakeable, until [Job.Wake]; a wake
// that comes while no wakeable wait is in progress is dropped by the next
// wait. It reports emptiness by asking the job itself, since the system
// does not promise to deliver every notification: the port only says when
// to ask.
func (j *Job) WaitEmpty(deadline time.Time, wakeable bool) (bool, error) {
	for {
		if n, err := j.Active(); err != nil || n == 0 {
			return err == nil, err
		}
		left := time.Until(deadline)
		if left <= 0 {
			return false, nil
		}
		var msg uint32
		var key uintptr
		var ov *windows.Overlapped
		err := windows.GetQueuedCompletionStatus(j.port, &msg, &key, &ov, uint32((left+time.Millisecond-1)/time.Millisecond))
		switch {
		case errors.Is(err, windows.WAIT_TIMEOUT):
			continue // the loop asks once more, then sees the deadline
		case err != nil:
			return false, os.NewSyscallError("GetQueuedCompletionStatus", err)
		case key == wakeKey && wakeable:
			return false, nil
		}
		// A notification of the job (a process joined or exited, the job
		// has no active process) or a stale wake: ask again at the top.
	}
}
