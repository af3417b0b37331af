package sys

import (
	"errors"
	"os"
	"unsafe"

	"golang.org/x/sys/windows"
)

// Access rights, creation flags, events and wait results of the calls
// below that callers pass or test, as the system names them.
const (
	SYNCHRONIZE                       = windows.SYNCHRONIZE
	PROCESS_QUERY_LIMITED_INFORMATION = windows.PROCESS_QUERY_LIMITED_INFORMATION

	CREATE_NEW_PROCESS_GROUP = windows.CREATE_NEW_PROCESS_GROUP
	CREATE_NO_WINDOW         = windows.CREATE_NO_WINDOW

	CTRL_BREAK_EVENT = windows.CTRL_BREAK_EVENT

	WAIT_OBJECT_0 = windows.WAIT_OBJECT_0
)

// procThreadAttributeJobList is PROC_THREAD_ATTRIBUTE_JOB_LIST
// (ProcThreadAttributeValue(13, FALSE, TRUE, FALSE); Windows 10 and
// later): the new process is created in the listed jobs.
const procThreadAttributeJobList = 0x2000D

// CreateProcess wraps CreateProcessW with bInheritHandles TRUE: the new
// process inherits every inheritable handle of this one. app is the
// program, cmdLine the whole command line (NUL-terminated), env an
// environment block, stdin, stdout and stderr the standard handles
// (STARTF_USESTDHANDLES), flags the creation flags. With job not nil the
// process is created in the job *job (PROC_THREAD_ATTRIBUTE_JOB_LIST), an
// attribute a system before Windows 10 refuses with
// ERROR_INVALID_PARAMETER or ERROR_NOT_SUPPORTED. It returns the process's
// ID and its process and thread handles; an error from CreateProcessW is
// an [*os.SyscallError].
func CreateProcess(app *uint16, cmdLine, env []uint16, stdin, stdout, stderr Handle, flags uint32, job *Handle) (pid int, process, thread Handle, err error) {
	var si windows.StartupInfoEx
	si.Cb = uint32(unsafe.Sizeof(si.StartupInfo))
	si.Flags = windows.STARTF_USESTDHANDLES
	si.StdInput, si.StdOutput, si.StdErr = stdin, stdout, stderr
	if job != nil {
		attrs, err := windows.NewProcThreadAttributeList(1)
		if err != nil {
			return 0, 0, 0, os.NewSyscallError("InitializeProcThreadAttributeList", err)
		}
		defer attrs.Delete()
		// The list holds the pointer job, which the caller keeps alive
		// until CreateProcess has returned.
		if err := attrs.Update(procThreadAttributeJobList, unsafe.Pointer(job), unsafe.Sizeof(*job)); err != nil {
			return 0, 0, 0, os.NewSyscallError("UpdateProcThreadAttribute", err)
		}
		si.ProcThreadAttributeList = attrs.List()
		si.Cb = uint32(unsafe.Sizeof(si))
		flags |= windows.EXTENDED_STARTUPINFO_PRESENT
	}
	var pi windows.ProcessInformation
	err = windows.CreateProcess(app, &cmdLine[0], nil, nil, true, flags, &env[0], nil, &si.StartupInfo, &pi)
	return int(pi.ProcessId), pi.Process, pi.Thread, os.NewSyscallError("CreateProcess", err)
}

// ResumeThread wraps ResumeThread.
func ResumeThread(thread Handle) error {
	_, err := windows.ResumeThread(thread)
	return os.NewSyscallError("ResumeThread", err)
}

// GetExitCodeProcess wraps GetExitCodeProcess.
func GetExitCodeProcess(process Handle) (uint32, error) {
	var code uint32
	err := windows.GetExitCodeProcess(process, &code)
	return code, os.NewSyscallError("GetExitCodeProcess", err)
}

// AssignProcessToJobObject wraps AssignProcessToJobObject.
func AssignProcessToJobObject(job, process Handle) error {
	return os.NewSyscallError("AssignProcessToJobObject", windows.AssignProcessToJobObject(job, process))
}

// TerminateProcess wraps TerminateProcess.
func TerminateProcess(process Handle, code uint32) error {
	return os.NewSyscallError("TerminateProcess", windows.TerminateProcess(process, code))
}

// WaitForSingleObject wraps WaitForSingleObject: it waits up to ms
// milliseconds (INFINITE: without limit) for h to be signalled and
// returns the wait's event (WAIT_OBJECT_0 once it was).
func WaitForSingleObject(h Handle, ms uint32) (uint32, error) {
	ev, err := windows.WaitForSingleObject(h, ms)
	return ev, os.NewSyscallError("WaitForSingleObject", err)
}

// OpenProcess wraps OpenProcess: a handle to process pid with the access
// rights access (SYNCHRONIZE, PROCESS_QUERY_LIMITED_INFORMATION), not
// inheritable. ERROR_INVALID_PARAMETER, no process with that ID, becomes
// [ErrGone].
func OpenProcess(access uint32, pid int) (Handle, error) {
	h, err := windows.OpenProcess(access, false, uint32(pid))
	if errors.Is(err, windows.ERROR_INVALID_PARAMETER) {
		return 0, ErrGone
	}
	return h, os.NewSyscallError("OpenProcess", err)
}

// ProcessCreationTime returns when process was created (GetProcessTimes),
// in 100 ns units.
func ProcessCreationTime(process Handle) (int64, error) {
	var c, e, k, u windows.Filetime
	err := windows.GetProcessTimes(process, &c, &e, &k, &u)
	return int64(c.HighDateTime)<<32 | int64(c.LowDateTime), os.NewSyscallError("GetProcessTimes", err)
}

// WaitForMultipleObjects wraps WaitForMultipleObjects: it waits up to ms
// milliseconds (INFINITE: without limit) for one of handles to be
// signalled (all of them with waitAll) and returns the wait's event
// (WAIT_OBJECT_0+i once handles[i] was).
func WaitForMultipleObjects(handles []Handle, waitAll bool, ms uint32) (uint32, error) {
	ev, err := windows.WaitForMultipleObjects(handles, waitAll, ms)
	return ev, os.NewSyscallError("WaitForMultipleObjects", err)
}

// CreateEvent wraps CreateEvent: an event without a name, whose handle is
// not inheritable, reset by hand and not signalled at first.
func CreateEvent() (Handle, error) {
	h, err := windows.CreateEvent(nil, 1, 0, nil)
	return h, os.NewSyscallError("CreateEvent", err)
}

// SetEvent wraps SetEvent: the event is signalled.
func SetEvent(event Handle) error {
	return os.NewSyscallError("SetEvent", windows.SetEvent(event))
}

// GenerateConsoleCtrlEvent wraps GenerateConsoleCtrlEvent: it sends event
// (CTRL_BREAK_EVENT) to the console process group pgid, through the
// console this process shares with it.
func GenerateConsoleCtrlEvent(event uint32, pgid int) error {
	return os.NewSyscallError("GenerateConsoleCtrlEvent", windows.GenerateConsoleCtrlEvent(event, uint32(pgid)))
}

// Access rights a contained call's leader is opened with.
const (
	PROCESS_SET_QUOTA      = windows.PROCESS_SET_QUOTA
	PROCESS_TERMINATE      = windows.PROCESS_TERMINATE
	PROCESS_SUSPEND_RESUME = windows.PROCESS_SUSPEND_RESUME
)

var procNtResumeProcess = windows.NewLazySystemDLL("ntdll.dll").NewProc("NtResumeProcess")

// ResumeProcess resumes every thread of a process created suspended
// (NtResumeProcess, in ntdll since Windows XP): for a process whose
// thread handle its creator did not keep (os/exec keeps none).
func ResumeProcess(process Handle) error {
	if err := procNtResumeProcess.Find(); err != nil {
		return os.NewSyscallError("NtResumeProcess", err)
	}
	r, _, _ := procNtResumeProcess.Call(uintptr(process))
	if r != 0 {
		return os.NewSyscallError("NtResumeProcess", windows.NTStatus(r))
	}
	return nil
}
