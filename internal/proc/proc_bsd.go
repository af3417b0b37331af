//go:build darwin || freebsd

package proc

import (
	"errors"
	"fmt"
	"os"

	"github.com/session-starter/session-starter/internal/sys"
)

// On macOS and FreeBSD the kernel's process table is read through sysctl
// kern.proc (kern.proc.pid, kern.proc.pgrp), decoded in proc_darwin.go and
// proc_freebsd.go; there is no /proc to read.

// kinfo reads the kinfo_proc records of a kern.proc sysctl (name with
// its argument), decoded by parseTable. A process that is gone is an
// empty listing. Where the table cannot be read (SameNamespace: 32-bit
// FreeBSD), nothing is asked of the kernel.
func kinfo(name string, args ...int) ([]kproc, error) {
	if err := SameNamespace(); err != nil {
		return nil, err
	}
	b, err := sys.KernProc(name, args...)
	if errors.Is(err, sys.ErrGone) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return parseTable(b)
}

// ReadStat returns what sysctl kern.proc.pid tells of pid.
func ReadStat(pid int) (Stat, error) {
	e, err := ReadEntry(pid)
	return e.Stat, err
}

// ReadEntry returns what sysctl kern.proc.pid tells of pid, with its
// real user ID.
func ReadEntry(pid int) (Entry, error) {
	ps, err := kinfo("kern.proc.pid", pid)
	if err != nil {
		return Entry{}, fmt.Errorf("proc: pid %d: %w", pid, err)
	}
	for _, p := range ps {
		if p.stat.PID == pid {
			return Entry{Stat: p.stat, UID: p.uid}, nil
		}
	}
	return Entry{}, fmt.Errorf("proc: pid %d: %w", pid, os.ErrNotExist)
}

// LiveMembers lists the live processes whose process group is pgid, from
// sysctl kern.proc.pgrp; zombies are left out. The result names numbers,
// not processes: a caller may trust it only between two checks that show
// the group number still belongs to the group it means, and must never
// signal a PID it found here.
func LiveMembers(pgid int) ([]Stat, error) {
	ps, err := kinfo("kern.proc.pgrp", pgid)
	if err != nil {
		return nil, fmt.Errorf("proc: group %d: %w", pgid, err)
	}
	var out []Stat
	for _, p := range ps {
		if p.stat.Pgrp == pgid && p.stat.Live() {
			out = append(out, p.stat)
		}
	}
	return out, nil
}

// ReadEnviron returns the environment of pid as entries each ended by a
// NUL, as each system lets it be read (readEnviron). A process that is not
// there is os.ErrNotExist.
func ReadEnviron(pid int) ([]byte, error) {
	b, err := readEnviron(pid)
	if errors.Is(err, sys.ErrGone) {
		return nil, fmt.Errorf("proc: pid %d: %w", pid, os.ErrNotExist)
	}
	if err != nil {
		return nil, fmt.Errorf("proc: pid %d: %w", pid, err)
	}
	return b, nil
}

// UID returns the real user ID of pid, or -1.
func UID(pid int) int {
	e, err := ReadEntry(pid)
	if err != nil {
		return -1
	}
	return e.UID
}

// Entry is one process of the kernel's process table.
type Entry struct {
	Stat
	UID int // the real user ID
}

// All lists every process of the process table, zombies included, from
// one read of sysctl kern.proc (kern.proc.all on macOS, kern.proc.proc on
// FreeBSD): a snapshot, whose numbers a caller must verify again before
// it acts on any.
func All() ([]Entry, error) {
	ps, err := kinfo(allProcs)
	if err != nil {
		return nil, fmt.Errorf("proc: process table: %w", err)
	}
	out := make([]Entry, 0, len(ps))
	for _, p := range ps {
		out = append(out, Entry{Stat: p.stat, UID: p.uid})
	}
	return out, nil
}

// Children lists the processes whose parent is ppid, zombies included
// (they are the parent's to reap).
func Children(ppid int) ([]int, error) {
	ps, err := kinfo(allProcs)
	if err != nil {
		return nil, fmt.Errorf("proc: children of %d: %w", ppid, err)
	}
	var out []int
	for _, p := range ps {
		if p.stat.PPID == ppid {
			out = append(out, p.stat.PID)
		}
	}
	return out, nil
}

// maxProbedFD bounds the descriptors OpenFDs looks at when the soft
// RLIMIT_NOFILE is larger (or unlimited): a launcher's descriptors above
// it are not seen, and so not handed to the Engine.
const maxProbedFD = 1 << 16

// OpenFDs lists this process's open descriptors in ascending order, by
// asking fcntl(F_GETFD) of each number below the soft RLIMIT_NOFILE (at
// most maxProbedFD): without /proc there is no listing to read, and
// /dev/fd on FreeBSD shows only 0-2 unless fdescfs is mounted.
func OpenFDs() ([]int, error) {
	limit, err := sys.OpenFilesLimit()
	if err != nil {
		return nil, fmt.Errorf("proc: %w", err)
	}
	n := min(limit, maxProbedFD)
	var out []int
	for fd := range int(n) {
		_, err := sys.CloseOnExec(fd)
		switch {
		case err == nil:
			out = append(out, fd)
		case errors.Is(err, sys.ErrBadFD):
		default:
			return nil, fmt.Errorf("proc: descriptor %d: %w", fd, err)
		}
	}
	return out, nil
}

// PipeHolders is not supported on this platform: no /proc to read.
func PipeHolders(uint64) ([]int, error) {
	return nil, fmt.Errorf("proc: pipe holders are read from /proc on Linux only: %w", errors.ErrUnsupported)
}
