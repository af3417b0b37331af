package sys

import (
	"errors"
	"fmt"
	"runtime"
	"sync"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// proc_pidinfo and dlsym are libSystem's (<libproc.h>, <dlfcn.h>), which
// golang.org/x/sys/unix does not wrap: each is reached by a trampoline of
// uniqid_darwin.s and called with the syscall package's syscall6, as
// golang.org/x/sys/unix calls its own libSystem functions; so is the
// function dlsym finds.

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

var libc_dlsym_trampoline_addr uintptr

//go:cgo_import_dynamic libc_dlsym dlsym "/usr/lib/libSystem.B.dylib"

// rtldDefault is RTLD_DEFAULT of <dlfcn.h>: ((void *)-2).
const rtldDefault = ^uintptr(1)

// signalByToken is the address of libSystem's
// proc_signal_with_audittoken (macOS 14.4 and later), or 0: looked up by
// dlsym, as a binary that named it for the loader would not start on an
// older release.
var signalByToken = sync.OnceValue(func() uintptr {
	name := []byte("proc_signal_with_audittoken\x00")
	// Sound: name outlives the call, which only reads it.
	fn, _, _ := syscall_syscall6(libc_dlsym_trampoline_addr, rtldDefault, uintptr(unsafe.Pointer(&name[0])), 0, 0, 0, 0)
	runtime.KeepAlive(name)
	return fn
})

// SignalIdentified sends sig to pid only while pid is the process of
// version, its p_idversion ([UniqueIDs]) read by the caller together with
// its unique id, after fd, its exit watch ([WatchExit]), was registered.
// Where libSystem has proc_signal_with_audittoken, the kernel finds the
// process of the audit token's PID and version and signals it under that
// one lookup (ESRCH when no process has both: [ErrGone]); the number
// cannot name another process there. Elsewhere it is [KillWatched].
func SignalIdentified(pid int, version int32, fd int, sig syscall.Signal) error {
	fn := signalByToken()
	if fn == 0 {
		return KillWatched(pid, fd, sig)
	}
	if pid <= 1 {
		return fmt.Errorf("proc_signal_with_audittoken: refusing pid %d", pid)
	}
	// audit_token_t: val[5] is the PID, val[7] the PID version; the
	// kernel reads no other word of it for a signal.
	var token [8]uint32
	token[5], token[7] = uint32(pid), uint32(version)
	// Sound: token outlives the call, which only reads it. The function
	// returns the error number itself, 0 on success.
	r, _, _ := syscall_syscall6(fn, uintptr(unsafe.Pointer(&token)), uintptr(sig), 0, 0, 0, 0)
	runtime.KeepAlive(&token)
	if e := syscall.Errno(uint32(r)); e != 0 {
		return namedOrGone("proc_signal_with_audittoken", e)
	}
	return nil
}
