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

// parseKinfo decodes FreeBSD kinfo_proc records (little-endian, as every
// port Go has for FreeBSD is). It returns an error wrapping ErrMalformed
// for bytes that are not whole records of this layout, each saying so in
// its ki_structsize, and no records then.
func parseKinfo(b []byte) ([]kproc, error) {
	if len(b)%kinfoSize != 0 {
		return nil, fmt.Errorf("%w: kern.proc returned %d bytes, not a multiple of %d", ErrMalformed, len(b), kinfoSize)
	}
	le := binary.LittleEndian
	var out []kproc
	for ; len(b) > 0; b = b[kinfoSize:] {
		if size := le.Uint32(b[0:]); size != kinfoSize {
			return nil, fmt.Errorf("%w: ki_structsize %d, want %d", ErrMalformed, size, kinfoSize)
		}
		comm := b[offComm : offComm+commLen]
		if i := bytes.IndexByte(comm, 0); i >= 0 {
			comm = comm[:i]
		}
		sec, usec := le.Uint64(b[offStart:]), le.Uint64(b[offStart+8:])
		out = append(out, kproc{
			stat: Stat{
				PID:        int(int32(le.Uint32(b[offPID:]))),
				PPID:       int(int32(le.Uint32(b[offPPID:]))),
				Pgrp:       int(int32(le.Uint32(b[offPgid:]))),
				Comm:       string(comm),
				State:      kiStateLetter(b[offStat]),
				NumThreads: 1,
				StartTime:  sec*1e6 + usec,
			},
			uid: int(le.Uint32(b[offRUID:])),
		})
	}
	return out, nil
}

// kiStateLetter maps ki_stat to the letters of Linux's /proc stat that
// [Stat.Live] and reports read: a zombie is Z (and, with one thread, not
// live), a stopped process T.
func kiStateLetter(s byte) byte {
	switch s {
	case kiSIDL:
		return 'I'
	case kiSRUN:
		return 'R'
	case kiSSLEEP, kiSWAIT, kiSLOCK:
		return 'S'
	case kiSSTOP:
		return 'T'
	case kiSZOMB:
		return 'Z'
	}
	return '?'
}
