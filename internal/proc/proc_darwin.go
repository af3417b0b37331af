package proc

import (
	"bytes"
	"errors"

	"github.com/session-starter/session-starter/internal/sys"
)

// p_stat values of <sys/proc.h>.
const (
	sidl   = 1
	srun   = 2
	ssleep = 3
	sstop  = 4
	szomb  = 5
)

// allProcs is the kern.proc sysctl that lists every process.
const allProcs = "kern.proc.all"

// SameNamespace holds trivially: macOS has one PID space.
func SameNamespace() error { return nil }

// kinfo reads the kinfo_proc records of a kern.proc sysctl (name with
// its argument). A process that is gone is an empty listing.
func kinfo(name string, args ...int) ([]kproc, error) {
	ps, err := sys.KinfoProcs(name, args...)
	if errors.Is(err, sys.ErrGone) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	out := make([]kproc, 0, len(ps))
	for _, p := range ps {
		comm := p.Proc.P_comm[:]
		if i := bytes.IndexByte(comm, 0); i >= 0 {
			comm = comm[:i]
		}
		out = append(out, kproc{
			stat: Stat{
				PID:        int(p.Proc.P_pid),
				Comm:       string(comm),
				State:      stateLetter(p.Proc.P_stat),
				PPID:       int(p.Eproc.Ppid),
				Pgrp:       int(p.Eproc.Pgid),
				NumThreads: 1,
				StartTime:  uint64(p.Proc.P_starttime.Sec)*1e6 + uint64(p.Proc.P_starttime.Usec),
			},
			uid: int(p.Eproc.Pcred.P_ruid),
		})
	}
	return out, nil
}

// stateLetter maps p_stat to the letters of Linux's /proc stat that
// [Stat.Live] and reports read: a zombie is Z (and, with one thread, not
// live), a stopped process T.
func stateLetter(s int8) byte {
	switch s {
	case sidl:
		return 'I'
	case srun:
		return 'R'
	case ssleep:
		return 'S'
	case sstop:
		return 'T'
	case szomb:
		return 'Z'
	}
	return '?'
}
