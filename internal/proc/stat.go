package proc

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
)

// Stat holds the fields of /proc/PID/stat that session-starter uses.
type Stat struct {
	PID        int
	Comm       string
	State      byte
	PPID       int
	Pgrp       int
	Session    int
	NumThreads int
	// StartTime is the start time after boot in clock ticks; with PID it
	// names one process for as long as the machine runs.
	StartTime uint64
}

// Live reports whether the process still runs code. A zombie counts as
// live while it has more than one thread: when a multi-threaded leader
// calls pthread_exit, its stat shows Z while the other threads run. A
// dead task (X) is not live.
func (s Stat) Live() bool {
	switch s.State {
	case 'X', 'x':
		return false
	case 'Z':
		return s.NumThreads > 1
	}
	return true
}

// ErrMalformed is returned for a stat line that does not parse.
var ErrMalformed = errors.New("malformed /proc stat line")

// ParseStat parses the contents of /proc/PID/stat. It returns a zero Stat
// and an error wrapping [ErrMalformed] on any malformed input.
func ParseStat(b []byte) (Stat, error) {
	open := bytes.IndexByte(b, '(')
	closing := bytes.LastIndexByte(b, ')')
	if open < 1 || closing < open {
		return Stat{}, fmt.Errorf("%w: no command name", ErrMalformed)
	}
	digits := bytes.TrimSpace(b[:open])
	pid, err := strconv.Atoi(string(digits))
	if err != nil || pid <= 0 || digits[0] < '0' || digits[0] > '9' {
		return Stat{}, fmt.Errorf("%w: pid", ErrMalformed)
	}
	// Fields after the command name, numbered as in proc(5) from 3.
	rest := bytes.Fields(b[closing+1:])
	const need = 22 - 2 // up to field 22, starttime
	if len(rest) < need || len(rest[0]) != 1 {
		return Stat{}, fmt.Errorf("%w: %d fields", ErrMalformed, len(rest)+2)
	}
	var v [4]int
	for i, f := range [...]struct {
		n    int
		name string
	}{{4, "ppid"}, {5, "pgrp"}, {6, "session"}, {20, "num_threads"}} {
		if v[i], err = strconv.Atoi(string(rest[f.n-3])); err != nil {
			return Stat{}, fmt.Errorf("%w: %s", ErrMalformed, f.name)
		}
	}
	s := Stat{PID: pid, Comm: string(b[open+1 : closing]), State: rest[0][0], PPID: v[0], Pgrp: v[1], Session: v[2], NumThreads: v[3]}
	if s.StartTime, err = strconv.ParseUint(string(rest[22-3]), 10, 64); err != nil {
		return Stat{}, fmt.Errorf("%w: starttime", ErrMalformed)
	}
	return s, nil
}
