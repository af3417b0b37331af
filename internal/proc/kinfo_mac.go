package proc

import (
	"bytes"
	"encoding/binary"
	"fmt"
)

// macOS's struct kinfo_proc, one record of a kern.proc listing, as XNU's
// <sys/sysctl.h> lays it out on the 64-bit ports (arm64 and x86_64, the
// only ones macOS has now): a struct extern_proc of <sys/proc.h> (296
// bytes) and a struct eproc (352 bytes), 648 bytes in all. The decoding
// is here, untagged, so that every platform's tests decode records built
// from the headers; only macOS reads real ones (proc_darwin.go).
//
// Offsets, by field: extern_proc's p_un is a union whose struct timeval
// p_starttime (a 64-bit tv_sec, a 32-bit tv_usec, padded to 16) is at 0;
// char p_stat at 36; pid_t p_pid at 40 (after 3 bytes of padding);
// char p_comm[MAXCOMLEN+1] at 243. eproc starts at 296: its struct
// _pcred e_pcred (char pc_lock[72], a pointer, then uid_t p_ruid) at
// 296+16, so p_ruid at 392; after struct _ucred (76 bytes) and struct
// vmspace (64, 8-aligned), pid_t e_ppid at 560 and pid_t e_pgid at 564.
const (
	macKinfoSize = 648
	macOffStart  = 0   // struct timeval p_starttime {int64 tv_sec; int32 tv_usec}
	macOffStat   = 36  // char p_stat
	macOffPID    = 40  // pid_t p_pid
	macOffComm   = 243 // char p_comm[MAXCOMLEN + 1]
	macCommLen   = 17  // MAXCOMLEN (16) + 1
	macOffRUID   = 392 // uid_t e_pcred.p_ruid
	macOffPPID   = 560 // pid_t e_ppid
	macOffPgid   = 564 // pid_t e_pgid
)

// p_stat values of XNU's <sys/proc.h>.
const (
	macSIDL   = 1
	macSRUN   = 2
	macSSLEEP = 3
	macSSTOP  = 4
	macSZOMB  = 5
)

// parseMacKinfo decodes macOS kinfo_proc records (little-endian, as both
// ports are). StartTime is p_starttime in microseconds since the epoch.
// It returns an error wrapping ErrMalformed, and no records, for bytes
// that are not whole records: unlike FreeBSD's, the record holds no size
// of its own to check.
func parseMacKinfo(b []byte) ([]kproc, error) {
	if len(b)%macKinfoSize != 0 {
		return nil, fmt.Errorf("%w: kern.proc returned %d bytes, not a multiple of %d", ErrMalformed, len(b), macKinfoSize)
	}
	le := binary.LittleEndian
	out := make([]kproc, 0, len(b)/macKinfoSize)
	for ; len(b) > 0; b = b[macKinfoSize:] {
		comm := b[macOffComm : macOffComm+macCommLen]
		if i := bytes.IndexByte(comm, 0); i >= 0 {
			comm = comm[:i]
		}
		sec, usec := le.Uint64(b[macOffStart:]), uint64(le.Uint32(b[macOffStart+8:]))
		out = append(out, kproc{
			stat: Stat{
				PID:        int(int32(le.Uint32(b[macOffPID:]))),
				PPID:       int(int32(le.Uint32(b[macOffPPID:]))),
				Pgrp:       int(int32(le.Uint32(b[macOffPgid:]))),
				Comm:       string(comm),
				State:      macStateLetter(b[macOffStat]),
				NumThreads: 1,
				StartTime:  sec*1e6 + usec,
			},
			uid: int(le.Uint32(b[macOffRUID:])),
		})
	}
	return out, nil
}

// macStateLetter maps p_stat to the letters of Linux's /proc stat that
// [Stat.Live] and reports read: a zombie is Z (and, with one thread, not
// live), a stopped process T.
func macStateLetter(s byte) byte {
	switch s {
	case macSIDL:
		return 'I'
	case macSRUN:
		return 'R'
	case macSSLEEP:
		return 'S'
	case macSSTOP:
		return 'T'
	case macSZOMB:
		return 'Z'
	}
	return '?'
}
