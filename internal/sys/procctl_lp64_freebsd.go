//go:build amd64 || arm64 || riscv64

package sys

import (
	"os"
	"unsafe"

	"golang.org/x/sys/unix"
)

// procctlSelf calls procctl(P_PID, getpid(), cmd, data) and names the
// failed call call. On the 64-bit ports the 64-bit id_t is one argument
// word, so the raw call takes the arguments as C does.
func procctlSelf(call string, cmd int, data unsafe.Pointer) error {
	// Sound: data points to a structure of the caller's that outlives the
	// call, which reads and writes it; the conversion is in the call.
	_, _, errno := unix.Syscall6(unix.SYS_PROCCTL, pPID, uintptr(os.Getpid()), uintptr(cmd), uintptr(data), 0, 0)
	return namedErrno(call, errno)
}

// CanAdoptOrphans (package starter's Options.Subreaper can be had) is
// true on the 64-bit ports: the starter becomes the reaper of its
// subtree.
const CanAdoptOrphans = true
