package main

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/session-starter/session-starter/starter/launch"
)

// sizeUnits are the powers of 1024 a size's suffix names, as systemd's
// MemoryMax= and docker's --memory read them.
var sizeUnits = map[string]float64{"K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}

// parseSize reads a size in bytes as people type it for a memory limit:
// a number, then nothing or "B" for bytes, or K, M, G or T, each alone
// or followed by "B", "i" or "iB", in either case (512M, 2G, 1.5GiB,
// 1048576).
func parseSize(s string) (int64, error) {
	bad := fmt.Errorf("%q: not a size (e.g. 512M, 2G, 1.5GiB, 1048576)", s)
	num := strings.TrimRight(s, "BbIiKkMmGgTt")
	suffix := strings.ToUpper(s[len(num):])
	mul := 1.0
	if suffix != "" && suffix != "B" {
		unit, rest := suffix[:1], suffix[1:]
		m, ok := sizeUnits[unit]
		if !ok || (rest != "" && rest != "B" && rest != "I" && rest != "IB") {
			return 0, bad
		}
		mul = m
	}
	f, err := strconv.ParseFloat(num, 64)
	if err != nil || num == "" || strings.ContainsAny(num, "+-eExXnN") || f*mul >= math.MaxInt64 {
		return 0, bad
	}
	return int64(f * mul), nil
}

// parseCPUs reads a CPU bound as people type it: a number of CPUs (1.5,
// 0.5) or a percentage of one CPU (50%, 150%), as systemd's CPUQuota=.
func parseCPUs(s string) (float64, error) {
	t := strings.TrimSpace(s)
	div := 1.0
	if p, ok := strings.CutSuffix(t, "%"); ok {
		t, div = p, 100
	}
	f, err := strconv.ParseFloat(t, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) || f <= 0 {
		return 0, fmt.Errorf("%q: not a number of CPUs (e.g. 0.5, 1.5, 50%%)", s)
	}
	return f / div, nil
}

// orUnset shows a limit's value, or "" when it is unset (0).
func orUnset[T int64 | float64](x T) string {
	if x == 0 {
		return ""
	}
	return fmt.Sprint(x)
}

// limitFlags defines the limits' flags and --cgroup-parent.
func limitFlags(fs *pflag.FlagSet, l *launch.Limits, cgroupParent *string) {
	fs.IntVar(&l.MaxTasks, "max-tasks", 0,
		"Let the session's tree have at most `N` tasks live at once, threads included (pids.max of the session "+
			"cgroup; a Node or Go program runs several threads at rest): a fork beyond it fails with EAGAIN, "+
			"and the ended record counts the forks refused. 0: no limit.")
	fs.Var(parsedValue[int64]{&l.MaxMemory, "size", parseSize, orUnset[int64]}, "max-memory",
		"Let the session's tree use at most `SIZE` of memory, page cache included (memory.max; 512M, 2G, "+
			"1.5GiB: powers of 1024), and no swap unless --max-swap says how much; beyond it the kernel's OOM "+
			"killer ends a process of the session, which the ended record and a line on stderr report.")
	fs.Var(parsedValue[int64]{&l.MaxSwap, "size", parseSize, orUnset[int64]}, "max-swap",
		"With --max-memory, the swap `SIZE` the session's tree may use (memory.swap.max). Default 0: none.")
	fs.Var(parsedValue[float64]{&l.MaxCPU, "cpus", parseCPUs, orUnset[float64]}, "max-cpu",
		"Let the session's tree use at most `CPUS` of CPU time (cpu.max over 100 ms periods): 0.5 or 50% is "+
			"half of one CPU, 2 two CPUs; at least 0.01.")
	fs.StringSliceVar(&l.Calls, "call-limits", nil,
		"Let the Engine's contained calls (Go package starter/contain) set the limits of the kinds in `LIST` "+
			"(tasks, memory, cpu; comma-separated) for each call's own cgroup: their controllers are made "+
			"available to the session cgroup as a session limit would, and nothing of the session is bounded. "+
			"Not needed on Windows, where each call's job takes limits of its own.")
	fs.StringVar(cgroupParent, "cgroup-parent", "",
		"Make the session cgroup in the cgroup v2 directory `DIR` (a delegated cgroup that holds no "+
			"process) instead of below session-starter's own cgroup: the way for a launcher that starts many "+
			"sessions from one cgroup to give them limits.")
}

// errZeroLimit is the error of a limit given as 0, which would read as
// "no limit" and is more likely a mistake.
var errZeroLimit = errors.New("must be more than 0 (leave the flag out for no limit)")
