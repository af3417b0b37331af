//go:build linux && !portable && !session_starter_noraw && go1.26 && !go1.28 && (amd64 || arm64)

package rawfork

import (
	"fmt"
	"os"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The porch's sweep of the marked: the processes that left group E (a
// setsid storm, a double-forking daemon) and carry the session's mark. A
// Go runtime cannot start while they hold every slot of the user's
// process limit, so the porch ends them itself, with the checks of the
// guard's mark holder (package internal/mark): a process is struck only
// through a pidfd opened before its stat, owner and environment were read,
// and still showing no exit after them, so that all it read was of the
// process the pidfd names. It is this user's (real user id), started at or
// after the session, live, and carries the id as an element of the mark
// variable's value. One whose environment cannot be read is passed over:
// the guard proper reports it.

// sweep is the sweep's state, in the porch's arena.
type sweep struct {
	on    bool     // the session has a mark
	entry [32]byte // "SESSION_STARTER_SESSION="
	id    [32]byte // the session's id, as the mark writes it
	n     uintptr  // len of the entry's name, "=" included
	since uint64   // the session's start, in clock ticks since boot
	uid   uintptr  // this user's real id
	self  uintptr  // the porch's PID

	procName                  [8]byte // "/proc"
	statName, statusName, env [8]byte // "stat", "status", "environ"
	dir, fd, pidfd            uintptr
	pid, start, threads, got  uintptr
	owner                     uintptr // the real user id read
	pre                       uintptr // the length of "PID/" in path
	ok                        bool
	state                     byte
	found                     uintptr // processes verified in this sweep
	path                      line
	digits                    line
	fds                       [2]pollFd
	ts                        syscall.Timespec

	// The environment's matcher, across reads: the place in the entry
	// (up to n), whether its name still matches, the place in the value's
	// element and whether it still matches, and a match.
	at, el        uintptr
	name, elem    bool
	hit           bool
	total, r, e   uintptr
	i, j, off, ln uintptr

	dents [8 << 10]byte
	buf   [4 << 10]byte
}

// Masks of the sweep's buffers: their sizes are powers of two.
const (
	dentsMask = 8<<10 - 1
	bufMask   = 4<<10 - 1
	// maxEnviron bounds what the sweep reads of one environment, as
	// internal/proc does.
	maxEnviron = 8 << 20
)

// set fills the sweep from spec, in the parent.
func (s *sweep) set(spec PorchSpec) error {
	if spec.MarkID == "" {
		return nil
	}
	if len(spec.MarkVar)+1 > len(s.entry) || len(spec.MarkID) != len(s.id) {
		return fmt.Errorf("mark %s=%s does not fit", spec.MarkVar, spec.MarkID)
	}
	s.on = true
	s.n = uintptr(copy(s.entry[:], spec.MarkVar+"="))
	copy(s.id[:], spec.MarkID)
	s.since, s.uid = spec.Since, uintptr(os.Getuid())
	for _, n := range []struct {
		dst  *[8]byte
		name string
	}{{&s.procName, "/proc"}, {&s.statName, "stat"}, {&s.statusName, "status"}, {&s.env, "environ"}} {
		n.dst[copy(n.dst[:], n.name)] = 0
	}
	return nil
}

// porchSweep looks at every process of /proc and, if sig is not 0, sends
// it to each that is verified marked; it reports how many it verified.
// A /proc that cannot be read counts as none.
//
//go:nosplit
//go:norace
func porchSweep(c *porchChild, sig uintptr) uintptr {
	s := &c.sw
	s.found = 0
	if !s.on {
		return 0
	}
	// Sound: procName is NUL-terminated in the arena.
	s.dir, s.e = rawSyscall6(unix.SYS_OPENAT, atFDCWD, uintptr(unsafe.Pointer(&s.procName[0])), syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0, 0, 0)
	if s.e != 0 {
		return 0
	}
	for {
		// Sound: dents is in the arena; the kernel writes at most its size.
		s.r, s.e = rawSyscall6(unix.SYS_GETDENTS64, s.dir, uintptr(unsafe.Pointer(&s.dents[0])), dentsMask+1, 0, 0, 0)
		if s.e == uintptr(syscall.EINTR) {
			continue
		}
		if s.e != 0 || s.r == 0 || s.r > dentsMask+1 {
			break
		}
		// struct linux_dirent64: ino (8), off (8), reclen (2), type
		// (1), then the NUL-terminated name.
		for s.off = 0; s.off+19 < s.r; {
			s.ln = uintptr(s.dents[(s.off+16)&dentsMask]) | uintptr(s.dents[(s.off+17)&dentsMask])<<8
			if s.ln == 0 {
				break
			}
			s.off += s.ln
			if !sweepPID(s, s.off-s.ln) || s.pid == s.self {
				continue
			}
			// Verified through a pidfd opened before anything of the
			// process is read.
			s.pidfd, s.e = rawSyscall6(unix.SYS_PIDFD_OPEN, s.pid, 0, 0, 0, 0, 0)
			if s.e != 0 {
				continue
			}
			s.pre = putNum(&s.path, 0, s.pid, '/', &s.digits)
			s.ok = sweepFile(s, &s.statName) && sweepStat(s)
			s.ok = s.ok && s.start >= uintptr(s.since) && (s.state != 'Z' || s.threads > 1) && s.state != 'X' && s.state != 'x'
			s.ok = s.ok && sweepFile(s, &s.statusName) && sweepUID(s)
			s.ok = s.ok && sweepFile(s, &s.env) && sweepMarked(s)
			if s.ok {
				// Not exited (or cannot be told): what was read was of the
				// process the pidfd names.
				s.fds[0] = pollFd{fd: int32(s.pidfd), events: unix.POLLIN}
				s.fds[1] = pollFd{fd: -1}
				s.ok = poll(&s.fds, 0, &s.ts) == 0 && s.fds[0].revents == 0
			}
			if s.ok {
				s.found++
				if sig != 0 {
					rawSyscall6(unix.SYS_PIDFD_SEND_SIGNAL, s.pidfd, sig, 0, 0, 0, 0)
				}
			}
			rawSyscall6(unix.SYS_CLOSE, s.pidfd, 0, 0, 0, 0, 0)
		}
	}
	rawSyscall6(unix.SYS_CLOSE, s.dir, 0, 0, 0, 0, 0)
	return s.found
}

// sweepPID reads the name of the dirent at at as a PID into s.pid; false if
// it is not a number.
//
//go:nosplit
//go:norace
func sweepPID(s *sweep, at uintptr) bool {
	s.pid = 0
	for s.i = at + 19; s.i < at+s.ln; s.i++ {
		b := s.dents[s.i&dentsMask]
		if b == 0 {
			break
		}
		if b < '0' || b > '9' {
			return false
		}
		s.pid = s.pid*10 + uintptr(b-'0')
	}
	return s.i > at+19 && s.pid > 0
}

// sweepFile opens /proc/PID/name of s.pid (path holds "PID/" up to
// s.pre) and reads its first buffer into buf: s.got bytes, 0 on an
// error. The environment is left open in s.fd for sweepMarked, the
// others are closed. False if it cannot be opened.
//
//go:nosplit
//go:norace
func sweepFile(s *sweep, name *[8]byte) bool {
	for s.i = 0; s.i < 8; s.i++ {
		s.path[(s.pre+s.i)&lineMask] = name[s.i&7]
	}
	// Sound: path is NUL-terminated in the arena (every name is).
	s.fd, s.e = rawSyscall6(unix.SYS_OPENAT, s.dir, uintptr(unsafe.Pointer(&s.path[0])), syscall.O_RDONLY|syscall.O_CLOEXEC, 0, 0, 0)
	if s.e != 0 {
		return false
	}
	for {
		// Sound: buf is in the arena.
		s.got, s.e = rawSyscall6(unix.SYS_READ, s.fd, uintptr(unsafe.Pointer(&s.buf[0])), bufMask+1, 0, 0, 0)
		if s.e != uintptr(syscall.EINTR) {
			break
		}
	}
	if s.e != 0 || s.got > bufMask+1 {
		s.got = 0
	}
	if name != &s.env {
		rawSyscall6(unix.SYS_CLOSE, s.fd, 0, 0, 0, 0, 0)
	}
	return true
}

// sweepStat reads, from the stat in buf, the state, thread count and
// start time: the fields 3, 20 and 22, counted from after the command
// name's last ')'.
//
//go:nosplit
//go:norace
func sweepStat(s *sweep) bool {
	s.j = s.got
	for s.i = 0; s.i < s.got; s.i++ {
		if s.buf[s.i&bufMask] == ')' {
			s.j = s.i
		}
	}
	if s.j+3 >= s.got {
		return false
	}
	s.state = s.buf[(s.j+2)&bufMask]
	// Field k (3 the state) starts after the (k-2)th space after ')'.
	s.el, s.start, s.threads = 0, 0, 0
	for s.i = s.j + 1; s.i < s.got && s.el <= 20; s.i++ {
		b := s.buf[s.i&bufMask]
		switch {
		case b == ' ':
			s.el++
		case b >= '0' && b <= '9' && s.el == 18:
			s.threads = s.threads*10 + uintptr(b-'0')
		case b >= '0' && b <= '9' && s.el == 20:
			s.start = s.start*10 + uintptr(b-'0')
		}
	}
	return s.el > 20
}

// sweepUID reports whether the real user id in the status in buf (the
// first of its line "Uid:") is this user's.
//
//go:nosplit
//go:norace
func sweepUID(s *sweep) bool {
	const key = "\nUid:"
	for s.i = 0; s.i+uintptr(len(key)) < s.got; s.i++ {
		for s.j = 0; s.j < uintptr(len(key)) && s.buf[(s.i+s.j)&bufMask] == key[s.j%uintptr(len(key))]; s.j++ {
		}
		if s.j < uintptr(len(key)) {
			continue
		}
		for s.i += s.j; s.i < s.got && (s.buf[s.i&bufMask] == '\t' || s.buf[s.i&bufMask] == ' '); s.i++ {
		}
		s.owner, s.j = 0, s.i
		for ; s.i < s.got && s.buf[s.i&bufMask] >= '0' && s.buf[s.i&bufMask] <= '9'; s.i++ {
			s.owner = s.owner*10 + uintptr(s.buf[s.i&bufMask]-'0')
		}
		return s.i > s.j && s.owner == s.uid
	}
	return false
}

// sweepMarked reports whether the environment open in s.fd, its first
// buffer read, holds the entry of the mark with the session's id as one
// of its ":"-separated elements; it reads at most maxEnviron bytes, and
// closes s.fd.
//
//go:nosplit
//go:norace
func sweepMarked(s *sweep) bool {
	s.at, s.name, s.el, s.elem, s.hit, s.total = 0, true, 0, true, false, 0
	for !s.hit && s.got > 0 && s.total < maxEnviron {
		s.total += s.got
		for s.i = 0; s.i < s.got; s.i++ {
			sweepByte(s, s.buf[s.i&bufMask])
		}
		for !s.hit {
			// Sound: buf is in the arena.
			s.got, s.e = rawSyscall6(unix.SYS_READ, s.fd, uintptr(unsafe.Pointer(&s.buf[0])), bufMask+1, 0, 0, 0)
			if s.e != uintptr(syscall.EINTR) {
				break
			}
		}
		if s.e != 0 || s.got > bufMask+1 {
			s.got = 0
		}
	}
	rawSyscall6(unix.SYS_CLOSE, s.fd, 0, 0, 0, 0, 0)
	return s.hit
}

// sweepByte feeds one byte of an environment block to the matcher.
//
//go:nosplit
//go:norace
func sweepByte(s *sweep, b byte) {
	if s.at < s.n {
		s.name = s.name && b == s.entry[s.at&31]
		s.at++
		if b == 0 {
			s.at, s.name = 0, true
		}
		return
	}
	if b == ':' || b == 0 {
		s.hit = s.hit || s.name && s.elem && s.el == 32
		s.el, s.elem = 0, true
		if b == 0 {
			s.at, s.name = 0, true
		}
		return
	}
	s.elem = s.elem && s.el < 32 && b == s.id[s.el&31]
	if s.el < 32 {
		s.el++
	}
}
