package sys

import (
	"errors"
	"runtime"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// proc_pidinfo is libSystem's (<libproc.h>), which golang.org/x/sys/unix
// does not wrap: it is reached by the trampoline of uniqid_darwin.s and
// called with the syscall package's syscall6, as golang.org/x/sys/unix
// calls its own libSystem functions.

// syscall_syscall6 calls the C function at fn with six arguments, as a
// system call (package syscall, which golang.org/x/sys/unix calls the
// same way). err is errno when the function returned -1.
//
//go:linkname syscall_syscall6 syscall.syscall6
func syscall_syscall6(fn, a1, a2, a3, a4, a5, a6 uintptr) (r1, r2 uintptr, err syscall.Errno)

var libc_proc_pidinfo_trampoline_addr uintptr

//go:cgo_import_dynamic libc_proc_pidinfo proc_pidinfo "/usr/lib/libSystem.B.dylib"

// procPIDUniqIdentifierInfo is PROC_PIDUNIQIDENTIFIERINFO of
// <sys/proc_info.h>.
const procPIDUniqIdentifierInfo = 17

// ProcUniqueIDs returns the unique ids of pid and of its parent
// (proc_pidinfo PROC_PIDUNIQIDENTIFIERINFO). proc_pidinfo returns the
// bytes it wrote, and 0 on failure, when errno is not handed back here:
// a failure is [ErrGone] when kill(pid, 0) then finds no process, and an
// error otherwise.
func ProcUniqueIDs(pid int) (UniqueIDs, error) {
	if pid <= 0 {
		return UniqueIDs{}, errors.New("proc_pidinfo: no pid")
	}
	var buf [uniqInfoSize]byte
	// Sound: buf outlives the call, which writes at most its size.
	n, _, _ := syscall_syscall6(libc_proc_pidinfo_trampoline_addr, uintptr(pid), procPIDUniqIdentifierInfo, 0, uintptr(unsafe.Pointer(&buf[0])), uniqInfoSize, 0)
	runtime.KeepAlive(&buf)
	ids, err := decodeUniqInfo(buf[:], int(int32(n)))
	if err != nil && errors.Is(unix.Kill(pid, 0), unix.ESRCH) {
		return UniqueIDs{}, ErrGone
	}
	return ids, err
}
