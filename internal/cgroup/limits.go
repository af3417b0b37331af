package cgroup

import (
	"bytes"
	"errors"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/session-starter/session-starter/starter/launch"
)

// ErrNotDelegated is wrapped by the error of [Enable] when a controller a
// limit needs is not offered to the cgroup where session cgroups are made
// (it is not in its cgroup.controllers: the cgroup above did not enable
// it, or did not delegate it).
var ErrNotDelegated = errors.New("controller not available")

// ErrOnV1 is wrapped by the error of [Enable] when a controller a limit
// needs is bound to a cgroup v1 hierarchy on this host: no delegation
// or subtree_control can offer it in cgroup v2, only a host whose init
// mounts it as v2 (systemd's unified hierarchy).
var ErrOnV1 = errors.New("controller on cgroup v1")

// ErrShared is wrapped by the error of [Enable] when the cgroup where
// session cgroups are made holds processes other than this one: cgroup
// v2 lets a cgroup hold processes or enable controllers for its children,
// not both (the "no internal processes" rule; the root cgroup is exempt).
var ErrShared = errors.New("the cgroup holds other processes")

// Limits are the bounds a session cgroup is given; a zero field sets no
// bound of its kind.
type Limits struct {
	// Tasks is pids.max: the live tasks of the cgroup, threads included.
	Tasks int64
	// Memory is memory.max in bytes. With it, Swap is memory.swap.max
	// in bytes (0: no swap).
	Memory, Swap int64
	// CPU is cpu.max in CPUs: 1.5 is one and a half CPUs' time per
	// period.
	CPU float64
}

// Any reports whether l sets a bound.
func (l Limits) Any() bool { return l.Tasks > 0 || l.Memory > 0 || l.CPU > 0 }

// Controllers lists the cgroup v2 controllers l needs, in the order the
// kernel lists them.
func (l Limits) Controllers() []string {
	var c []string
	if l.CPU > 0 {
		c = append(c, "cpu")
	}
	if l.Memory > 0 {
		c = append(c, "memory")
	}
	if l.Tasks > 0 {
		c = append(c, "pids")
	}
	return c
}

// CPUPeriod is the period of cpu.max, in microseconds: the kernel's
// default, 100 ms. A quota below MinCPUQuota of it is refused by the
// kernel (EINVAL).
const (
	CPUPeriod   = 100000
	MinCPUQuota = 1000
)

// MinCPU is the smallest CPU bound cpu.max takes: MinCPUQuota of
// CPUPeriod.
const MinCPU = float64(MinCPUQuota) / CPUPeriod

// cpuMax is what cpu.max is given for cpus CPUs: the quota and the period
// in microseconds.
func cpuMax(cpus float64) string {
	return strconv.FormatInt(int64(math.Round(cpus*CPUPeriod)), 10) + " " + strconv.Itoa(CPUPeriod)
}

// write is one file of a limit: its name, what is written, and what a
// read of it must then give. An optional file may be absent: no swap
// bound asked for where the kernel accounts no swap.
type write struct {
	file, value, want string
	optional          bool
}

// writes lists the files l writes, each with the value a read must give
// back: memory sizes are kept by the kernel in whole pages, rounded down.
func (l Limits) writes(page int64) []write {
	var w []write
	if l.Tasks > 0 {
		n := strconv.FormatInt(l.Tasks, 10)
		w = append(w, write{"pids.max", n, n, false})
	}
	if l.Memory > 0 {
		for _, f := range []struct {
			file string
			n    int64
		}{{"memory.max", l.Memory}, {"memory.swap.max", l.Swap}} {
			w = append(w, write{f.file, strconv.FormatInt(f.n, 10), strconv.FormatInt(f.n/page*page, 10), f.file == "memory.swap.max" && f.n == 0})
		}
	}
	if l.CPU > 0 {
		v := cpuMax(l.CPU)
		w = append(w, write{"cpu.max", v, v, false})
	}
	return w
}

// flatKeyed reads key from a cgroup file of "key value" lines
// (cpu.stat, memory.events, pids.events), or the file's one number when
// key is ""; ok is false when the key is not there or its value is not
// a number.
func flatKeyed(b []byte, key string) (int64, bool) {
	v, found := b, key == ""
	for line := range bytes.SplitSeq(b, []byte("\n")) {
		if k, rest, ok := bytes.Cut(line, []byte(" ")); !found && ok && string(k) == key {
			v, found = rest, true
		}
	}
	if !found {
		return 0, false
	}
	n, err := strconv.ParseInt(strings.TrimSpace(string(v)), 10, 64)
	return n, err == nil
}

// usageFrom is what a cgroup's counters tell of its whole tree, exited
// processes included, each figure with its file as source. read gives a
// counter: the value of the line key of a flat-keyed file (cpu.stat,
// memory.events, pids.events), or the file's one number when key is "";
// nil when the cgroup has none (no such controller enabled for it, or a
// kernel without the file).
func usageFrom(read func(file, key string) *int64) launch.Usage {
	var u launch.Usage
	if n := read("cpu.stat", "usage_usec"); n != nil {
		// Kept by the cgroup core, with or without the cpu controller.
		u.SetCPU(time.Duration(*n)*time.Microsecond, "cpu.stat")
	}
	if u.MemoryPeakBytes = read("memory.peak", ""); u.MemoryPeakBytes != nil {
		u.MemoryPeakSource = "memory.peak"
	}
	if u.TasksPeak = read("pids.peak", ""); u.TasksPeak != nil {
		u.TasksPeakSource = "pids.peak"
	}
	u.OOMKills = read("memory.events", "oom_kill")
	u.ForksRefused = read("pids.events", "max")
	return u
}
