package sys

import (
	"os"

	"golang.org/x/sys/windows"
)

// Handles, flags and types of the calls below that callers pass or test,
// as the system names them.
const (
	STD_INPUT_HANDLE  = windows.STD_INPUT_HANDLE
	STD_OUTPUT_HANDLE = windows.STD_OUTPUT_HANDLE
	STD_ERROR_HANDLE  = windows.STD_ERROR_HANDLE

	HANDLE_FLAG_INHERIT = windows.HANDLE_FLAG_INHERIT

	FILE_TYPE_PIPE = windows.FILE_TYPE_PIPE
)

// CurrentProcess returns the pseudo handle of this process, which needs no
// closing.
func CurrentProcess() Handle { return windows.CurrentProcess() }

// CurrentThread returns the pseudo handle of the calling thread, which
// needs no closing and names whatever thread uses it: [DuplicateHandle]
// makes a real one.
func CurrentThread() Handle { return windows.CurrentThread() }

// GetStdHandle wraps GetStdHandle: the standard handle std
// (STD_INPUT_HANDLE, STD_OUTPUT_HANDLE, STD_ERROR_HANDLE), 0 where there
// is none. An invalid handle is an error.
func GetStdHandle(std uint32) (Handle, error) {
	h, err := windows.GetStdHandle(std)
	return h, os.NewSyscallError("GetStdHandle", err)
}

// SetStdHandle wraps SetStdHandle: h becomes the standard handle std.
func SetStdHandle(std uint32, h Handle) error {
	return os.NewSyscallError("SetStdHandle", windows.SetStdHandle(std, h))
}

// SetHandleInformation wraps SetHandleInformation: the flags of h in mask
// (HANDLE_FLAG_INHERIT) are set as flags says.
func SetHandleInformation(h Handle, mask, flags uint32) error {
	return os.NewSyscallError("SetHandleInformation", windows.SetHandleInformation(h, mask, flags))
}

// DuplicateHandle wraps DuplicateHandle within this process: a new handle
// to what h names, with the same access, inheritable if inherit is set.
func DuplicateHandle(h Handle, inherit bool) (Handle, error) {
	self := windows.CurrentProcess()
	var dup Handle
	err := windows.DuplicateHandle(self, h, self, &dup, 0, inherit, windows.DUPLICATE_SAME_ACCESS)
	return dup, os.NewSyscallError("DuplicateHandle", err)
}

// GetFileType wraps GetFileType: what h is (FILE_TYPE_PIPE, ...).
func GetFileType(h Handle) (uint32, error) {
	t, err := windows.GetFileType(h)
	return t, os.NewSyscallError("GetFileType", err)
}

// ReadFile wraps a synchronous ReadFile of h into p: the bytes read.
// A pipe whose writers are all gone fails with ERROR_BROKEN_PIPE.
func ReadFile(h Handle, p []byte) (int, error) {
	var n uint32
	err := windows.ReadFile(h, p, &n, nil)
	return int(n), os.NewSyscallError("ReadFile", err)
}

// WriteFile wraps a synchronous WriteFile of p to h: the bytes written.
func WriteFile(h Handle, p []byte) (int, error) {
	var n uint32
	err := windows.WriteFile(h, p, &n, nil)
	return int(n), os.NewSyscallError("WriteFile", err)
}

// CloseHandles closes each of hs that is not 0 and sets it to 0.
func CloseHandles(hs ...*Handle) {
	for _, h := range hs {
		if *h != 0 {
			_ = windows.CloseHandle(*h)
			*h = 0
		}
	}
}
