package sys

import (
	"errors"
	"os"
	"unsafe"

	"golang.org/x/sys/windows"
)

// Handle is a Windows handle.
type Handle = windows.Handle

// Flags and errors of the calls below that callers pass or test, as the
// system names them.
const (
	JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE = windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE

	CREATE_SUSPENDED           = windows.CREATE_SUSPENDED
	CREATE_UNICODE_ENVIRONMENT = windows.CREATE_UNICODE_ENVIRONMENT

	INFINITE = windows.INFINITE

	ERROR_INVALID_PARAMETER = windows.ERROR_INVALID_PARAMETER
	ERROR_NOT_SUPPORTED     = windows.ERROR_NOT_SUPPORTED
	WAIT_TIMEOUT            = windows.WAIT_TIMEOUT
)

// CloseHandle wraps CloseHandle.
func CloseHandle(h Handle) error {
	return os.NewSyscallError("CloseHandle", windows.CloseHandle(h))
}

// CreateJobObject wraps CreateJobObject: a job without a name, whose
// handle is not inheritable.
func CreateJobObject() (Handle, error) {
	h, err := windows.CreateJobObject(nil, nil)
	return h, os.NewSyscallError("CreateJobObject", err)
}

// setJob sets the job's information of class to *info
// (SetInformationJobObject).
func setJob[T any](job Handle, class uint32, info *T) error {
	_, err := windows.SetInformationJobObject(job, class, uintptr(unsafe.Pointer(info)), uint32(unsafe.Sizeof(*info)))
	return os.NewSyscallError("SetInformationJobObject", err)
}

// queryJob reads the job's information of class into *info
// (QueryInformationJobObject).
func queryJob[T any](job Handle, class int32, info *T) error {
	err := windows.QueryInformationJobObject(job, class, uintptr(unsafe.Pointer(info)), uint32(unsafe.Sizeof(*info)), nil)
	return os.NewSyscallError("QueryInformationJobObject", err)
}

// SetJobLimits sets the job's extended limits
// (JobObjectExtendedLimitInformation) to flags, with processes as its
// ActiveProcessLimit (JOB_OBJECT_LIMIT_ACTIVE_PROCESS added when it is
// not 0) and memory bytes as its JobMemoryLimit
// (JOB_OBJECT_LIMIT_JOB_MEMORY added when not 0). Flags 0 with no other
// limit clears every limit, kill-on-close included.
func SetJobLimits(job Handle, flags, processes uint32, memory uintptr) error {
	var limits windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION
	if processes > 0 {
		flags |= windows.JOB_OBJECT_LIMIT_ACTIVE_PROCESS
		limits.BasicLimitInformation.ActiveProcessLimit = processes
	}
	if memory > 0 {
		flags |= windows.JOB_OBJECT_LIMIT_JOB_MEMORY
		limits.JobMemoryLimit = memory
	}
	limits.BasicLimitInformation.LimitFlags = flags
	return setJob(job, windows.JobObjectExtendedLimitInformation, &limits)
}

// jobCPURateControl is JOBOBJECT_CPU_RATE_CONTROL_INFORMATION with its
// CpuRate member of the union.
type jobCPURateControl struct {
	ControlFlags uint32
	CpuRate      uint32
}

// The flags of <winnt.h> that JobObjectCpuRateControlInformation takes.
const (
	jobObjectCpuRateControlEnable  = 0x1
	jobObjectCpuRateControlHardCap = 0x4
)

// SetJobCPURate caps the job's CPU time at rate ten-thousandths of the
// whole machine's (JOB_OBJECT_CPU_RATE_CONTROL_ENABLE | HARD_CAP; rate
// 1 to 10000).
func SetJobCPURate(job Handle, rate uint32) error {
	info := jobCPURateControl{ControlFlags: jobObjectCpuRateControlEnable | jobObjectCpuRateControlHardCap, CpuRate: rate}
	return setJob(job, windows.JobObjectCpuRateControlInformation, &info)
}

// JobUsage returns the CPU time of every process the job has held,
// user and kernel, in units of 100 ns
// (JobObjectBasicAccountingInformation), and the peak memory committed
// by the job's processes together, in bytes (PeakJobMemoryUsed of
// JobObjectExtendedLimitInformation).
func JobUsage(job Handle) (cpu100ns int64, peak uintptr, err error) {
	var info jobBasicAccounting
	if err := queryJob(job, windows.JobObjectBasicAccountingInformation, &info); err != nil {
		return 0, 0, err
	}
	var limits windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION
	if err := queryJob(job, windows.JobObjectExtendedLimitInformation, &limits); err != nil {
		return 0, 0, err
	}
	return info.TotalUserTime + info.TotalKernelTime, limits.PeakJobMemoryUsed, nil
}

// UnderWine reports whether this process runs under Wine, whose ntdll
// exports wine_get_version: Wine enforces no job limit and accounts no
// job time.
func UnderWine() bool {
	return windows.NewLazySystemDLL("ntdll.dll").NewProc("wine_get_version").Find() == nil
}

// jobAssociateCompletionPort is JOBOBJECT_ASSOCIATE_COMPLETION_PORT.
type jobAssociateCompletionPort struct {
	CompletionKey  uintptr
	CompletionPort Handle
}

// AssociateJobCompletionPort makes the system post the job's
// notifications to port, with key as their completion key
// (JobObjectAssociateCompletionPortInformation).
func AssociateJobCompletionPort(job, port Handle, key uintptr) error {
	assoc := jobAssociateCompletionPort{CompletionKey: key, CompletionPort: port}
	return setJob(job, windows.JobObjectAssociateCompletionPortInformation, &assoc)
}

// TerminateJobObject wraps TerminateJobObject: every process of the job
// ends with exit code code.
func TerminateJobObject(job Handle, code uint32) error {
	return os.NewSyscallError("TerminateJobObject", windows.TerminateJobObject(job, code))
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

// JobActiveProcesses returns the number of processes in the job that
// have not exited (JobObjectBasicAccountingInformation).
func JobActiveProcesses(job Handle) (int, error) {
	var info jobBasicAccounting
	err := queryJob(job, windows.JobObjectBasicAccountingInformation, &info)
	return int(info.ActiveProcesses), err
}

// jobProcessIDList is JOBOBJECT_BASIC_PROCESS_ID_LIST with room for 1024
// IDs: enough to name survivors in a report, which lists at most a few
// dozen.
type jobProcessIDList struct {
	Assigned uint32
	Listed   uint32
	IDs      [1024]uintptr
}

// JobProcessIDs returns the IDs of the processes in the job, at most 1024
// of them (JobObjectBasicProcessIdList); a job with more is no error.
func JobProcessIDs(job Handle) ([]int, error) {
	var list jobProcessIDList
	if err := queryJob(job, windows.JobObjectBasicProcessIdList, &list); err != nil && !errors.Is(err, windows.ERROR_MORE_DATA) {
		return nil, err
	}
	pids := make([]int, 0, list.Listed)
	for _, p := range list.IDs[:min(int(list.Listed), len(list.IDs))] {
		pids = append(pids, int(p))
	}
	return pids, nil
}

// CreateIoCompletionPort wraps CreateIoCompletionPort for a new port
// that no file is associated with, run by up to threads threads at once.
func CreateIoCompletionPort(threads uint32) (Handle, error) {
	port, err := windows.CreateIoCompletionPort(windows.InvalidHandle, 0, 0, threads)
	return port, os.NewSyscallError("CreateIoCompletionPort", err)
}

// PostQueuedCompletionStatus posts a packet to port with completion key
// key, no bytes and no OVERLAPPED.
func PostQueuedCompletionStatus(port Handle, key uintptr) error {
	return os.NewSyscallError("PostQueuedCompletionStatus", windows.PostQueuedCompletionStatus(port, 0, key, nil))
}

// GetQueuedCompletionStatus waits up to ms milliseconds for a packet on
// port and takes it; an error wrapping WAIT_TIMEOUT when none came in
// that time.
func GetQueuedCompletionStatus(port Handle, ms uint32) error {
	var msg uint32
	var key uintptr
	var ov *windows.Overlapped
	return os.NewSyscallError("GetQueuedCompletionStatus", windows.GetQueuedCompletionStatus(port, &msg, &key, &ov, ms))
}
