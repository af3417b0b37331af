//go:build linux && !portable && !session_starter_noraw && go1.26 && !go1.28 && (amd64 || arm64)

package rawfork

// The functions a child runs. Each is //go:nosplit (the runtime's
// BeforeFork arms a stack guard that throws on any growth in the child;
// the linker checks that every chain of nosplit calls fits in the stack
// that is left) and //go:norace (the race runtime cannot run in the
// child). They keep their state in the child's arena, take few
// arguments, index nothing in a way that needs a bounds check (arrays are
// indexed through a power-of-two mask, arena arrays through unsafe.Add),
// and reach the kernel only through rawSyscall6.

import (
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// lineMask indexes a line buffer: lines are at most 64 bytes
// (wire.MaxLine), a power of two.
const lineMask = 63

// line is a buffer of one message.
type line [lineMask + 1]byte

// exit ends the child with status.
//
//go:nosplit
//go:norace
func exit(status uintptr) {
	for {
		rawSyscall6(unix.SYS_EXIT_GROUP, status, 0, 0, 0, 0, 0)
	}
}

// writeAll writes n bytes at p to fd and returns the errno of a failure.
//
//go:nosplit
//go:norace
func writeAll(fd int32, p *byte, n uintptr) uintptr {
	for n > 0 {
		// Sound: p points at n bytes of the arena.
		w, e := rawSyscall6(unix.SYS_WRITE, uintptr(fd), uintptr(unsafe.Pointer(p)), n, 0, 0, 0)
		if e == uintptr(syscall.EINTR) {
			continue
		}
		if e != 0 {
			return e
		}
		p = (*byte)(unsafe.Add(unsafe.Pointer(p), w))
		n -= w
	}
	return 0
}

// read reads up to n bytes from fd into p, retrying EINTR, and returns
// how many it read and the errno of a failure.
//
//go:nosplit
//go:norace
func read(fd uintptr, p *byte, n uintptr) (uintptr, uintptr) {
	for {
		// Sound: p points at n bytes of the arena.
		r, e := rawSyscall6(unix.SYS_READ, fd, uintptr(unsafe.Pointer(p)), n, 0, 0, 0)
		if e != uintptr(syscall.EINTR) {
			return r, e
		}
	}
}

// keepOnly closes every descriptor but the n sorted ones at keep.
//
//go:nosplit
//go:norace
func keepOnly(keep *int32, n uintptr) {
	next := uintptr(0)
	for i := uintptr(0); i < n; i++ {
		// Sound: keep points at n int32s of the arena.
		fd := uintptr(*(*int32)(unsafe.Add(unsafe.Pointer(keep), 4*i)))
		if fd > next {
			rawSyscall6(unix.SYS_CLOSE_RANGE, next, fd-1, 0, 0, 0, 0)
		}
		next = fd + 1
	}
	rawSyscall6(unix.SYS_CLOSE_RANGE, next, uintptr(^uint32(0)), 0, 0, 0, 0)
}

// setName sets the command name (/proc/PID/comm) to the NUL-terminated
// name.
//
//go:nosplit
//go:norace
func setName(name *byte) {
	// Sound: name is a NUL-terminated string of the arena.
	rawSyscall6(unix.SYS_PRCTL, unix.PR_SET_NAME, uintptr(unsafe.Pointer(name)), 0, 0, 0, 0)
}

// putNum writes n in decimal and then end into b at i, and returns the
// index after them; digits is scratch. Numbers are at most 20 digits, and
// b has room for them.
//
//go:nosplit
//go:norace
func putNum(b *line, i uintptr, n uintptr, end byte, digits *line) uintptr {
	d := uintptr(0)
	for {
		digits[d&lineMask] = byte('0' + n%10)
		d++
		n /= 10
		if n == 0 {
			break
		}
	}
	for d > 0 {
		d--
		b[i&lineMask] = digits[d&lineMask]
		i++
	}
	b[i&lineMask] = end
	return i + 1
}

// putLine writes the n bytes at prefix into b, then num in decimal and
// end, as putNum does, and returns the line's length.
//
//go:nosplit
//go:norace
func putLine(b, prefix *line, n, num uintptr, end byte, digits *line) uintptr {
	for i := uintptr(0); i < n; i++ {
		b[i&lineMask] = prefix[i&lineMask]
	}
	return putNum(b, n, num, end, digits)
}

// pollFd is struct pollfd.
type pollFd struct {
	fd      int32
	events  int16
	revents int16
}

// now reads CLOCK_MONOTONIC into *ts and returns it in nanoseconds, with
// a system call (the vDSO is the runtime's).
//
//go:nosplit
//go:norace
func now(ts *syscall.Timespec) int64 {
	// Sound: ts is in the arena.
	rawSyscall6(unix.SYS_CLOCK_GETTIME, unix.CLOCK_MONOTONIC, uintptr(unsafe.Pointer(ts)), 0, 0, 0, 0)
	return ts.Sec*1e9 + ts.Nsec
}

// poll waits for the events of the two entries at fds, at most timeout
// nanoseconds (< 0: without a limit; ts is scratch), and returns the
// errno of a failure; EINTR is retried with the same timeout. Entries
// with fd < 0 are ignored, as poll does.
//
//go:nosplit
//go:norace
func poll(fds *[2]pollFd, timeout int64, ts *syscall.Timespec) uintptr {
	tsp := uintptr(0)
	if timeout >= 0 {
		ts.Sec, ts.Nsec = timeout/1e9, timeout%1e9
		tsp = uintptr(unsafe.Pointer(ts))
	}
	for {
		// Sound: fds and ts are in the arena.
		_, e := rawSyscall6(unix.SYS_PPOLL, uintptr(unsafe.Pointer(fds)), 2, tsp, 0, 0, 0)
		if e != uintptr(syscall.EINTR) {
			return e
		}
	}
}
