package proc

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/session-starter/session-starter/internal/sys"
)

// x/sys/unix has no struct kinfo_proc for FreeBSD: the fields used here
// are read at their offsets in <sys/user.h> (FreeBSD 12 and later, on
// 64-bit ports, where the record is KINFO_PROC_SIZE = 1088 bytes).
const (
	kinfoSize = 1088
	offPID    = 72
	offPPID   = 76
	offPgid   = 80
	offRUID   = 172
	offStart  = 336 // struct timeval ki_start
	offStat   = 388
	offComm   = 447
	commLen   = 20 // COMMLEN + 1
)

// ki_stat values of <sys/proc.h>.
const (
	sidl   = 1
	srun   = 2
	ssleep = 3
	sstop  = 4
	szomb  = 5
	swait  = 6
	slock  = 7
)

// allProcs is the kern.proc sysctl that lists every process (one record
// each, not one per thread).
const allProcs = "kern.proc.proc"

// kinfo reads the kinfo_proc records of a kern.proc sysctl (name with
// its argument). A process that is gone is an empty listing.
func kinfo(name string, args ...int) ([]kproc, error) {
	b, err := sys.KinfoProcs(name, args...)
	if errors.Is(err, sys.ErrGone) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return parseKinfo(b)
}

// parseKinfo decodes kinfo_proc records.
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
				State:      stateLetter(b[offStat]),
				NumThreads: 1,
				StartTime:  sec*1e6 + usec,
			},
			uid: int(le.Uint32(b[offRUID:])),
		})
	}
	return out, nil
}

// stateLetter maps ki_stat to the letters of Linux's /proc stat that
// [Stat.Live] and reports read: a zombie is Z (and, with one thread, not
// live), a stopped process T.
func stateLetter(s byte) byte {
	switch s {
	case sidl:
		return 'I'
	case srun:
		return 'R'
	case ssleep, swait, slock:
		return 'S'
	case sstop:
		return 'T'
	case szomb:
		return 'Z'
	}
	return '?'
}
