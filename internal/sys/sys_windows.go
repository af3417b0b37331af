package sys

import (
	"os"
	"unsafe"

	"golang.org/x/sys/windows"
)

// Calls of kernel32 that golang.org/x/sys/windows does not wrap.
var (
	kernel32                 = windows.NewLazySystemDLL("kernel32.dll")
	procGetHandleInformation = kernel32.NewProc("GetHandleInformation")
	procCancelSynchronousIo  = kernel32.NewProc("CancelSynchronousIo")
	procGetConsoleWindow     = kernel32.NewProc("GetConsoleWindow")
)

// GetHandleInformation wraps GetHandleInformation: the flags of h
// (HANDLE_FLAG_INHERIT, HANDLE_FLAG_PROTECT_FROM_CLOSE). It fails for a
// value that is not an open handle of this process.
func GetHandleInformation(h windows.Handle) (uint32, error) {
	var flags uint32
	// flags lives on this stack for the call only.
	r, _, err := procGetHandleInformation.Call(uintptr(h), uintptr(unsafe.Pointer(&flags)))
	if r == 0 {
		return 0, os.NewSyscallError("GetHandleInformation", err)
	}
	return flags, nil
}

// CancelSynchronousIo wraps CancelSynchronousIo: it cancels the
// synchronous read or write that thread is blocked in, if any.
func CancelSynchronousIo(thread windows.Handle) error {
	if r, _, err := procCancelSynchronousIo.Call(uintptr(thread)); r == 0 {
		return os.NewSyscallError("CancelSynchronousIo", err)
	}
	return nil
}

// HasConsoleWindow reports whether this process has a console window
// (GetConsoleWindow): without one, no console control event reaches it
// or reaches a console program it starts.
func HasConsoleWindow() bool {
	r, _, _ := procGetConsoleWindow.Call()
	return r != 0
}

// CommandLine returns this process's command line as it was given
// (GetCommandLine), before any splitting into arguments.
func CommandLine() string {
	return windows.UTF16PtrToString(windows.GetCommandLine())
}

// ComposeCommandLine quotes args, the program first, for the C runtime's
// parser and joins them into one command line.
func ComposeCommandLine(args []string) string {
	return windows.ComposeCommandLine(args)
}

// GetSystemDirectory wraps GetSystemDirectory: the path of the system
// directory.
func GetSystemDirectory() (string, error) {
	dir, err := windows.GetSystemDirectory()
	return dir, os.NewSyscallError("GetSystemDirectory", err)
}
