package proc

import (
	"bytes"
	"encoding/binary"
	"fmt"
)

// FreeBSD's struct kinfo_proc, one record of a kern.proc listing, as
// <sys/user.h> lays it out on the 64-bit ports (amd64, arm64, riscv64:
// KINFO_PROC_SIZE is 1088 bytes there; FreeBSD keeps the layout across
// releases, adding fields only in its spare room). The decoding is here,
// untagged, so that every platform's tests decode records built from the
// header; only FreeBSD reads real ones (proc_freebsd.go). The 32-bit
// ports lay the record out otherwise (768 bytes on i386, 816 on arm) and
// are not decoded.
const (
	kinfoSize = 1088
	offPID    = 72  // pid_t ki_pid, after 2 ints and 8 pointers
	offPPID   = 76  // pid_t ki_ppid
	offPgid   = 80  // pid_t ki_pgid
	offRUID   = 172 // uid_t ki_ruid
	offStart  = 336 // struct timeval ki_start {time_t, suseconds_t}
	offStat   = 388 // char ki_stat
	offComm   = 447 // char ki_comm[COMMLEN + 1]
	commLen   = 20  // COMMLEN (19) + 1
)

// ki_stat values of FreeBSD's <sys/proc.h>.
const (
	kiSIDL   = 1
	kiSRUN   = 2
	kiSSLEEP = 3
	kiSSTOP  = 4
	kiSZOMB  = 5
	kiSWAIT  = 6
	kiSLOCK  = 7
)

// kproc is one process of a kern.proc listing.
type kproc struct {
	stat Stat
	uid  int
}

// freebsdLayout is FreeBSD's layout (little-endian, as every port Go has
// for FreeBSD is); its ki_stat maps to the letters of Linux's /proc stat
// ([kinfoLayout.states]). Each record says its size in ki_structsize.
var freebsdLayout = kinfoLayout{
	size: kinfoSize, pid: offPID, ppid: offPPID, pgid: offPgid, ruid: offRUID,
	start: offStart, stat: offStat, comm: offComm, commLen: commLen, sized: true,
	states: map[byte]byte{kiSIDL: 'I', kiSRUN: 'R', kiSSLEEP: 'S', kiSWAIT: 'S', kiSLOCK: 'S', kiSSTOP: 'T', kiSZOMB: 'Z'},
}

// kinfoLayout is where a kinfo_proc record keeps what is read of it:
// offsets of little-endian fields, of the command name and its room, and
// of the start, a struct timeval whose tv_usec is 64-bit unless usec32.
// sized says the record begins with its own size, ki_structsize, checked.
// states maps a state number to the letter of Linux's /proc stat that
// [Stat.Live] and reports read (a zombie Z, and with one thread not live;
// a stopped process T); any other is '?'.
type kinfoLayout struct {
	size, pid, ppid, pgid, ruid, start, stat, comm, commLen int
	usec32, sized                                           bool
	states                                                  map[byte]byte
}

// parse decodes the records of b, or returns an error wrapping
// ErrMalformed, and no records, for bytes that are not whole records.
func (l kinfoLayout) parse(b []byte) ([]kproc, error) {
	if len(b)%l.size != 0 {
		return nil, fmt.Errorf("%w: kern.proc returned %d bytes, not a multiple of %d", ErrMalformed, len(b), l.size)
	}
	le := binary.LittleEndian
	out := make([]kproc, 0, len(b)/l.size)
	for ; len(b) > 0; b = b[l.size:] {
		if size := le.Uint32(b[0:]); l.sized && size != uint32(l.size) {
			return nil, fmt.Errorf("%w: ki_structsize %d, want %d", ErrMalformed, size, l.size)
		}
		comm, _, _ := bytes.Cut(b[l.comm:l.comm+l.commLen], []byte{0})
		usec := le.Uint64(b[l.start+8:])
		if l.usec32 {
			usec = uint64(le.Uint32(b[l.start+8:]))
		}
		state, ok := l.states[b[l.stat]]
		if !ok {
			state = '?'
		}
		out = append(out, kproc{
			stat: Stat{
				PID:        int(int32(le.Uint32(b[l.pid:]))),
				PPID:       int(int32(le.Uint32(b[l.ppid:]))),
				Pgrp:       int(int32(le.Uint32(b[l.pgid:]))),
				Comm:       string(comm),
				State:      state,
				NumThreads: 1,
				StartTime:  le.Uint64(b[l.start:])*1e6 + usec,
			},
			uid: int(le.Uint32(b[l.ruid:])),
		})
	}
	return out, nil
}
