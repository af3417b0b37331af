package proc

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"syscall"

	"github.com/session-starter/session-starter/internal/sys"
)

// Root is where procfs is read, named once.
const Root = "/proc"

// readFile reads the file at path into buf: up to len(buf) bytes for a
// file whose size is bounded (a stat line), or, whole, all of it, buf
// grown as it fills (a children list, whose length is not bounded). It
// uses raw calls (no *os.File), so that a scan of thousands of processes
// allocates little.
func readFile(path string, buf []byte, whole bool) ([]byte, error) {
	fd, err := sys.Open(path, sys.O_RDONLY)
	if err != nil {
		return nil, err
	}
	defer sys.Close(fd)
	n := 0
	for {
		if n == len(buf) {
			if !whole {
				return buf, nil
			}
			buf = append(buf, make([]byte, max(len(buf), 512))...)
		}
		m, err := sys.Read(fd, buf[n:])
		if err != nil {
			return nil, err
		}
		if m == 0 {
			return buf[:n], nil
		}
		n += m
	}
}

// gone reports whether err means the process ended while it was read.
func gone(err error) bool {
	return errors.Is(err, syscall.ENOENT) || errors.Is(err, syscall.ESRCH)
}

// ReadStat reads and parses /proc/PID/stat. A process that is gone gives
// an error for which [errors.Is](err, os.ErrNotExist) holds.
func ReadStat(pid int) (Stat, error) {
	var buf [1024]byte
	b, err := readFile(Root+"/"+strconv.Itoa(pid)+"/stat", buf[:], false)
	if err != nil {
		if gone(err) {
			return Stat{}, fmt.Errorf("proc: pid %d: %w", pid, os.ErrNotExist)
		}
		return Stat{}, fmt.Errorf("proc: read stat of %d: %w", pid, err)
	}
	st, err := ParseStat(b)
	if err != nil {
		return Stat{}, fmt.Errorf("proc: pid %d: %w", pid, err)
	}
	return st, nil
}

// maxEnviron bounds what ReadEnviron reads: the kernel's limit on argv
// and environment together at execve (ARG_MAX, a quarter of the stack
// limit) is far less for any process started with the default limits.
const maxEnviron = 8 << 20

// ReadEnviron reads /proc/PID/environ: the environment block the process
// was executed with, each entry ended by a NUL. A process that is gone
// gives an error for which [errors.Is](err, os.ErrNotExist) holds; one
// whose environment this process may not read, [os.ErrPermission].
func ReadEnviron(pid int) ([]byte, error) {
	var b []byte
	f, err := os.Open(Root + "/" + strconv.Itoa(pid) + "/environ")
	if err == nil {
		b, err = io.ReadAll(io.LimitReader(f, maxEnviron))
		f.Close()
	}
	switch {
	case gone(err):
		return nil, fmt.Errorf("proc: pid %d: %w", pid, os.ErrNotExist)
	case err != nil:
		return nil, fmt.Errorf("proc: environ of %d: %w", pid, err)
	}
	return b, nil
}

// PIDs lists the processes of /proc by number (its numeric entries):
// names, not processes, as LiveMembers says.
func PIDs() ([]int, error) {
	pids, _, err := numbered(Root)
	return pids, err
}

// numbered lists the numeric names of the directory dir, and the
// descriptor the listing read it through.
func numbered(dir string) ([]int, int, error) {
	d, err := os.Open(dir)
	if err != nil {
		return nil, -1, fmt.Errorf("proc: %w", err)
	}
	defer d.Close()
	names, err := d.Readdirnames(-1)
	if err != nil {
		return nil, -1, fmt.Errorf("proc: list %s: %w", dir, err)
	}
	out := make([]int, 0, len(names))
	for _, n := range names {
		if n[0] < '0' || n[0] > '9' {
			continue
		}
		if num, err := strconv.Atoi(n); err == nil {
			out = append(out, num)
		}
	}
	return out, int(d.Fd()), nil
}

// LiveMembers scans /proc for the live processes whose process group is
// pgid. The result names numbers, not processes: a caller may trust it
// only between two checks that show the group number still belongs to the
// group it means, and must never signal a PID it found here.
func LiveMembers(pgid int) ([]Stat, error) {
	all, err := PIDs()
	if err != nil {
		return nil, err
	}
	var out []Stat
	for _, pid := range all {
		// getpgid first: one system call, where a stat read makes the
		// kernel format some fifty fields (about 10 µs a process here,
		// BenchmarkLiveMembers). Only a PID in the group (or one the
		// call could not ask about) has its stat read; a PID that exits
		// in between is gone either way.
		if pg, err := sys.Getpgid(pid); err == nil && pg != pgid || errors.Is(err, sys.ErrGone) {
			continue
		}
		st, err := ReadStat(pid)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		if st.Pgrp == pgid && st.Live() {
			out = append(out, st)
		}
	}
	return out, nil
}

// UID returns the real user ID of pid from /proc/PID/status, or -1.
func UID(pid int) int {
	var buf [4096]byte
	b, err := readFile(Root+"/"+strconv.Itoa(pid)+"/status", buf[:], false)
	if err != nil {
		return -1
	}
	return parseUID(b)
}

func parseUID(b []byte) int {
	for line := range bytes.SplitSeq(b, []byte("\n")) {
		if rest, ok := bytes.CutPrefix(line, []byte("Uid:")); ok {
			f := bytes.Fields(rest)
			if len(f) > 0 {
				if uid, err := strconv.Atoi(string(f[0])); err == nil {
					return uid
				}
			}
		}
	}
	return -1
}

// OpenFDs lists the descriptor numbers in /proc/self/fd, in ascending
// order. The descriptor of the directory listing itself is left out.
func OpenFDs() ([]int, error) {
	fds, own, err := numbered(Root + "/self/fd")
	if err != nil {
		return nil, err
	}
	fds = slices.DeleteFunc(fds, func(fd int) bool { return fd == own })
	slices.Sort(fds)
	return fds, nil
}

// SameNamespace reports whether /proc belongs to this process's PID
// namespace: readlink /proc/self must be this process's PID. A /proc of
// another namespace would make every scan name strangers.
func SameNamespace() error {
	target, err := os.Readlink(Root + "/self")
	if err != nil {
		return fmt.Errorf("proc: %w", err)
	}
	if target != strconv.Itoa(os.Getpid()) {
		return fmt.Errorf("proc: %s/self is %q but this process is %d: /proc belongs to another PID namespace", Root, target, os.Getpid())
	}
	return nil
}

// PipeHolders lists the processes that have a descriptor of the pipe
// with inode ino open, by reading every /proc/PID/fd link: "pipe:[ino]".
// A process that exits during the scan is left out; one whose
// descriptors may not be read (another user's, without privilege) is
// left out too, so the list is a lower bound.
func PipeHolders(ino uint64) ([]int, error) {
	all, err := PIDs()
	if err != nil {
		return nil, err
	}
	want := "pipe:[" + strconv.FormatUint(ino, 10) + "]"
	var out []int
	for _, pid := range all {
		dir := Root + "/" + strconv.Itoa(pid) + "/fd"
		fds, _, err := numbered(dir)
		if err != nil {
			continue
		}
		for _, fd := range fds {
			if l, err := os.Readlink(dir + "/" + strconv.Itoa(fd)); err == nil && l == want {
				out = append(out, pid)
				break
			}
		}
	}
	slices.Sort(out)
	return out, nil
}
