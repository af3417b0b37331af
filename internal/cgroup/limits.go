package cgroup

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"slices"
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

// CallControllers are the kinds of limit a session's calls may set for
// themselves ([launch.Limits] Calls), each with the controller it needs.
var CallControllers = map[string]string{"tasks": "pids", "memory": "memory", "cpu": "cpu"}

// CheckLimits refuses limits no kernel could take, before anything
// starts: a session's, and a call's.
func CheckLimits(l launch.Limits) error {
	for _, k := range l.Calls {
		if _, ok := CallControllers[k]; !ok {
			return fmt.Errorf("--call-limits %q: want tasks, memory or cpu", k)
		}
	}
	switch {
	case l.MaxTasks < 0, l.MaxMemory < 0, l.MaxSwap < 0, l.MaxCPU < 0:
		return errors.New("limits must not be negative")
	case l.MaxCPU > 0 && l.MaxCPU < MinCPU:
		// cpu.max refuses a quota under 1 ms of its 100 ms period.
		return fmt.Errorf("--max-cpu %g: at least %g (cpu.max takes no less than 1 ms of each 100 ms)", l.MaxCPU, MinCPU)
	case l.MaxSwap > 0 && l.MaxMemory == 0:
		return errors.New("--max-swap goes with --max-memory")
	}
	return nil
}

// Controllers lists the cgroup v2 controllers l's bounds need, in the
// order the kernel lists them.
func Controllers(l launch.Limits) []string {
	var c []string
	for _, w := range writes(l, 1) {
		c = append(c, strings.Split(w.file, ".")[0]) // pids.max: pids
	}
	// The kernel lists cpu, memory and pids in this order too.
	slices.Sort(c)
	return slices.Compact(c)
}

// CPUPeriod is the period of cpu.max, in microseconds: the kernel's
// default, 100 ms.
const CPUPeriod = 100000

// MinCPU is the smallest CPU bound cpu.max takes: the kernel refuses a
// quota under 1 ms of CPUPeriod (EINVAL).
const MinCPU = 1000.0 / CPUPeriod

// write is one file of a limit: its name, what is written, and what a
// read of it must then give. An optional file may be absent: no swap
// bound asked for where the kernel accounts no swap.
type write struct {
	file, value, want string
	optional          bool
}

// writes lists the files l writes, each with the value a read must give
// back: memory sizes are kept by the kernel in whole pages, rounded down.
func writes(l launch.Limits, page int64) []write {
	var w []write
	if l.MaxTasks > 0 {
		n := strconv.Itoa(l.MaxTasks)
		w = append(w, write{"pids.max", n, n, false})
	}
	if l.MaxMemory > 0 {
		for _, f := range []struct {
			file string
			n    int64
		}{{"memory.max", l.MaxMemory}, {"memory.swap.max", l.MaxSwap}} {
			w = append(w, write{f.file, strconv.FormatInt(f.n, 10), strconv.FormatInt(f.n/page*page, 10), f.file == "memory.swap.max" && f.n == 0})
		}
	}
	if l.MaxCPU > 0 {
		// The quota and the period, in microseconds.
		v := strconv.FormatInt(int64(math.Round(l.MaxCPU*CPUPeriod)), 10) + " " + strconv.Itoa(CPUPeriod)
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
