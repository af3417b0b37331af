//go:build darwin || freebsd || linux

package sys

import (
	"errors"
	"fmt"
	"io"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// PollFd is one entry of [Poll]: a descriptor, the events asked for and
// the events that came.
type PollFd = unix.PollFd

// Stat_t is what [Fstat] and [Fstatat] report of a file.
type Stat_t = unix.Stat_t

// Flags and events of the calls below that callers pass or read, as the
// system names them.
const (
	O_RDONLY    = unix.O_RDONLY
	O_WRONLY    = unix.O_WRONLY
	O_RDWR      = unix.O_RDWR
	O_NONBLOCK  = unix.O_NONBLOCK
	O_DIRECTORY = unix.O_DIRECTORY

	AT_REMOVEDIR        = unix.AT_REMOVEDIR
	AT_SYMLINK_NOFOLLOW = unix.AT_SYMLINK_NOFOLLOW

	LOCK_EX = unix.LOCK_EX
	LOCK_NB = unix.LOCK_NB

	MSG_DONTWAIT = unix.MSG_DONTWAIT

	WNOHANG = unix.WNOHANG

	POLLIN   = unix.POLLIN
	POLLPRI  = unix.POLLPRI
	POLLNVAL = unix.POLLNVAL
	POLLHUP  = unix.POLLHUP
	POLLERR  = unix.POLLERR
	POLLOUT  = unix.POLLOUT

	S_IFMT   = unix.S_IFMT
	S_IFIFO  = unix.S_IFIFO
	S_IFSOCK = unix.S_IFSOCK
	S_IFCHR  = unix.S_IFCHR
)

// Poll waits for events on fds, as poll(2) does: a negative timeout waits
// without limit. Linux takes the timeout to the nanosecond (ppoll); macOS
// and FreeBSD round a positive one up to whole milliseconds. On EINTR it
// retries with the time that is left.
func Poll(fds []PollFd, timeout time.Duration) (int, error) {
	deadline := time.Now().Add(timeout)
	return ignoringEINTR(func() (int, error) {
		left := time.Duration(-1)
		if timeout >= 0 {
			left = max(time.Until(deadline), 0)
		}
		return poll(fds, left)
	})
}

// Read wraps [unix.Read], retrying EINTR.
func Read(fd int, p []byte) (int, error) {
	n, err := ignoringEINTR(func() (int, error) { return unix.Read(fd, p) })
	return n, named("read", err)
}

// WriteAll writes all of p to fd with raw write calls, retrying EINTR and
// short writes. A raw write to a pipe whose reader is gone returns EPIPE:
// the Go runtime turns that into death by SIGPIPE only for os.File writes
// to descriptors 1 and 2, never for a raw write.
func WriteAll(fd int, p []byte) error {
	for len(p) > 0 {
		n, err := ignoringEINTR(func() (int, error) { return unix.Write(fd, p) })
		if err != nil {
			return named("write", err)
		}
		p = p[n:]
	}
	return nil
}

// OpenAt opens name in the directory of the descriptor dir, close-on-exec,
// with flags.
func OpenAt(dir int, name string, flags int) (int, error) {
	fd, err := ignoringEINTR(func() (int, error) { return unix.Openat(dir, name, flags|unix.O_CLOEXEC, 0) })
	return fd, named("openat "+name, err)
}

// CreateAt creates name in the directory of the descriptor dir, a file
// that must not exist yet (not even as a symlink), write-only,
// close-on-exec, with mode.
func CreateAt(dir int, name string, mode uint32) (int, error) {
	fd, err := ignoringEINTR(func() (int, error) {
		return unix.Openat(dir, name, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, mode)
	})
	return fd, named("openat "+name, err)
}

// Renameat renames from to to, both in the directory of the descriptor
// dir.
func Renameat(dir int, from, to string) error {
	return named("renameat", unix.Renameat(dir, from, dir, to))
}

// Pipes returns two close-on-exec pipes, [Pipe]'s read end then write
// end of each, or none: a failure of the second closes the first.
func Pipes() (r1, w1, r2, w2 int, err error) {
	if r1, w1, err = Pipe(); err != nil {
		return -1, -1, -1, -1, err
	}
	if r2, w2, err = Pipe(); err != nil {
		Close(r1)
		Close(w1)
		return -1, -1, -1, -1, err
	}
	return r1, w1, r2, w2, nil
}

// Open opens path, close-on-exec, with flags; it retries EINTR. The
// path goes into the error only on failure, so that a scan of /proc
// allocates nothing for each file it opens.
func Open(path string, flags int) (int, error) {
	fd, err := ignoringEINTR(func() (int, error) { return unix.Open(path, flags|unix.O_CLOEXEC, 0) })
	return fd, named("open "+path, err)
}

// Recv reads from the socket fd, as recvfrom does without the sender's
// address, with flags (MSG_DONTWAIT); it retries EINTR.
func Recv(fd int, p []byte, flags int) (int, error) {
	n, err := ignoringEINTR(func() (int, error) {
		n, _, err := unix.Recvfrom(fd, p, flags)
		return n, err
	})
	return n, named("recvfrom", err)
}

// SocketType returns the type of the socket fd (SOCK_STREAM,
// SOCK_DGRAM, SOCK_SEQPACKET): getsockopt SO_TYPE.
func SocketType(fd int) (int, error) {
	t, err := unix.GetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_TYPE)
	return t, named("getsockopt SO_TYPE", err)
}

// Listening reports whether the socket fd listens for connections
// (getsockopt SO_ACCEPTCONN).
func Listening(fd int) (bool, error) {
	v, err := unix.GetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_ACCEPTCONN)
	return v != 0, named("getsockopt SO_ACCEPTCONN", err)
}

// SOCK_STREAM is the socket type of a byte stream, whose peer's close
// reads as end of input.
const SOCK_STREAM = unix.SOCK_STREAM

// Buffered returns how many bytes the pipe or socket fd holds unread
// (ioctl FIONREAD).
func Buffered(fd int) (int, error) {
	n, err := unix.IoctlGetInt(fd, fionread)
	return n, named("ioctl FIONREAD", err)
}

// IsTerminal reports whether fd is a terminal: the ioctl that reads its
// settings (TCGETS, TIOCGETA) succeeds on it.
func IsTerminal(fd int) bool {
	_, err := unix.IoctlGetTermios(fd, getTermios)
	return err == nil
}

// Pread reads from fd at offset off, retrying EINTR.
func Pread(fd int, p []byte, off int64) (int, error) {
	n, err := ignoringEINTR(func() (int, error) { return unix.Pread(fd, p, off) })
	return n, named("pread", err)
}

// Close wraps [unix.Close]. It is never retried: Linux frees the
// descriptor even when close reports EINTR.
func Close(fd int) error {
	return named("close", unix.Close(fd))
}

// CloseFDs closes each open descriptor of fds (not negative) and sets
// it to -1, so that a second call closes nothing.
func CloseFDs(fds ...*int) {
	for _, fd := range fds {
		if *fd >= 0 {
			Close(*fd)
			*fd = -1
		}
	}
}

// CloseOnExec reports whether fd is open and close-on-exec.
// It returns [ErrBadFD] if fd is not open.
func CloseOnExec(fd int) (bool, error) {
	flags, err := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0)
	if errors.Is(err, unix.EBADF) {
		return false, ErrBadFD
	}
	if err != nil {
		return false, named("fcntl", err)
	}
	return flags&unix.FD_CLOEXEC != 0, nil
}

// SetCloseOnExec marks fd close-on-exec. The flag belongs to this
// process's descriptor table, not to the open file, so the launcher's
// descriptors are not changed.
func SetCloseOnExec(fd int) error {
	_, err := unix.FcntlInt(uintptr(fd), unix.F_SETFD, unix.FD_CLOEXEC)
	return named("fcntl", err)
}

// ClearCloseOnExec clears the close-on-exec flag of fd.
func ClearCloseOnExec(fd int) error {
	_, err := unix.FcntlInt(uintptr(fd), unix.F_SETFD, 0)
	return named("fcntl", err)
}

// SetNonblock sets or clears O_NONBLOCK on fd's open file.
func SetNonblock(fd int, nonblocking bool) error {
	return named("fcntl", unix.SetNonblock(fd, nonblocking))
}

// DupCloseOnExec returns a close-on-exec copy of fd, numbered lowest or
// above (fcntl F_DUPFD_CLOEXEC).
func DupCloseOnExec(fd, lowest int) (int, error) {
	nfd, err := unix.FcntlInt(uintptr(fd), unix.F_DUPFD_CLOEXEC, lowest)
	return nfd, named("fcntl", err)
}

// KillGroup sends sig to the process group pgid by number: kill(-pgid).
// The caller must know the number is still the group it means (a member
// of its own pins it); it returns [ErrGone] when the group has no member.
// A group whose members are all zombies answers differently by kernel:
// Linux and FreeBSD signal it (nothing is delivered to a zombie, and the
// call succeeds); macOS skips zombies and, having signalled no process,
// answers EPERM (not ESRCH) until they are reaped — the number is still
// the group's then.
func KillGroup(pgid int, sig syscall.Signal) error {
	if pgid <= 1 {
		return fmt.Errorf("kill: refusing group %d", pgid)
	}
	return namedOrGone("kill", unix.Kill(-pgid, sig))
}

// AccessMode returns the O_ACCMODE bits of fd's open file.
func AccessMode(fd int) (int, error) {
	fl, err := unix.FcntlInt(uintptr(fd), unix.F_GETFL, 0)
	if err != nil {
		return 0, named("fcntl", err)
	}
	return fl & unix.O_ACCMODE, nil
}

// Fstat wraps [unix.Fstat].
func Fstat(fd int) (Stat_t, error) {
	var st Stat_t
	err := unix.Fstat(fd, &st)
	return st, named("fstat", err)
}

// Fstatat wraps [unix.Fstatat]: name in the directory of the descriptor
// dir, with flags (AT_SYMLINK_NOFOLLOW).
func Fstatat(dir int, name string, flags int) (Stat_t, error) {
	var st Stat_t
	return st, named("fstatat", unix.Fstatat(dir, name, &st, flags))
}

// Fstatfs wraps [unix.Fstatfs]: the file system of fd.
func Fstatfs(fd int) (unix.Statfs_t, error) {
	var fs unix.Statfs_t
	err := unix.Fstatfs(fd, &fs)
	return fs, named("fstatfs", err)
}

// Mkdirat makes the directory name in the directory of the descriptor
// dir.
func Mkdirat(dir int, name string, mode uint32) error {
	return named("mkdirat", unix.Mkdirat(dir, name, mode))
}

// Unlinkat removes name from the directory of the descriptor dir; with
// AT_REMOVEDIR it removes an empty directory.
func Unlinkat(dir int, name string, flags int) error {
	return named("unlinkat", unix.Unlinkat(dir, name, flags))
}

// Flock applies or removes an advisory lock on fd's open file (LOCK_EX,
// LOCK_NB), retrying EINTR. With LOCK_NB a lock held elsewhere is
// EWOULDBLOCK.
func Flock(fd, how int) error {
	_, err := ignoringEINTR(func() (struct{}, error) { return struct{}{}, unix.Flock(fd, how) })
	return named("flock", err)
}

// Getpgid wraps [unix.Getpgid]; ESRCH becomes [ErrGone].
func Getpgid(pid int) (int, error) {
	pg, err := unix.Getpgid(pid)
	if errors.Is(err, unix.ESRCH) {
		return 0, ErrGone
	}
	return pg, named("getpgid", err)
}

// Setpgid wraps [unix.Setpgid].
func Setpgid(pid, pgid int) error {
	return named("setpgid", unix.Setpgid(pid, pgid))
}

// Getpgrp returns the process group of this process.
func Getpgrp() int { return unix.Getpgrp() }

// Tcgetpgrp returns the foreground process group of the terminal fd
// (ioctl TIOCGPGRP). It fails with ENOTTY unless fd is this process's
// controlling terminal.
func Tcgetpgrp(fd int) (int, error) {
	pgid, err := unix.IoctlGetInt(fd, unix.TIOCGPGRP)
	return pgid, named("tcgetpgrp", err)
}

// Tcsetpgrp makes pgid the foreground process group of the terminal fd
// (ioctl TIOCSPGRP), retrying EINTR. From the background it stops the
// caller by SIGTTOU unless that is blocked or ignored.
func Tcsetpgrp(fd, pgid int) error {
	_, err := ignoringEINTR(func() (struct{}, error) {
		return struct{}{}, unix.IoctlSetPointerInt(fd, unix.TIOCSPGRP, pgid)
	})
	return named("tcsetpgrp", err)
}

// FD reads from a raw descriptor as an [io.Reader]: a zero-byte read is
// [io.EOF]. It never closes the descriptor.
type FD int

func (fd FD) Read(p []byte) (int, error) {
	n, err := Read(int(fd), p)
	if err == nil && n == 0 && len(p) > 0 {
		return 0, io.EOF
	}
	return n, err
}

// MonotonicNanos reads CLOCK_MONOTONIC in nanoseconds: the clock a raw
// child reads too, one for the whole system, so that a deadline it passes
// on to a program it executes means the same there.
func MonotonicNanos() int64 {
	var ts unix.Timespec
	_ = unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts)
	return ts.Nano()
}

// ReapIfExited reaps the child pid if it has exited, without waiting
// (wait4 WNOHANG), and returns the CPU time its reap reported (see
// [WaitStatus.CPU]).
func ReapIfExited(pid int) (time.Duration, bool, error) {
	var ws unix.WaitStatus
	var ru unix.Rusage
	got, err := ignoringEINTR(func() (int, error) { return unix.Wait4(pid, &ws, unix.WNOHANG, &ru) })
	if err != nil || got != pid {
		return 0, false, named("wait4", err)
	}
	return cpuOf(&ru), true, nil
}

// cpuOf is the user and system time of a reap's rusage.
func cpuOf(ru *unix.Rusage) time.Duration {
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
