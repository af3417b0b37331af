package main

// Limits and usage through the session's job. Wine enforces no job limit
// and accounts no job time (measured: ActiveProcessLimit 2 let three
// children start, a 64 MiB job let a child touch 200 MiB, CPU rate
// control is refused, the times read 0): there, session-starter refuses
// every limit, naming Wine, and the tests of their effect skip, naming
// it; they run on the workflow's Windows job. A limit is checked by its
// effect, never by reading it back.

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/session-starter/session-starter/internal/sys"
	"github.com/session-starter/session-starter/internal/testproc"
	"github.com/session-starter/session-starter/internal/wire"
)

func init() {
	// spawn N: starts N children that sleep (leaf 0), prints "started K"
	// with how many started, then exits 0 (the session ends them).
	testproc.Register("spawn", func(args []string) int {
		n, _ := strconv.Atoi(args[0])
		k := 0
		for range n {
			c := exec.Command(os.Args[0], "0")
			c.Env = append(os.Environ(), testproc.HelperVar+"=leaf")
			if c.Start() == nil {
				k++
			}
		}
		fmt.Printf("started %d\n", k)
		return 0
	})
	// alloc MIB: commits and touches MIB MiB, one at a time; prints
	// "allocated" and exits 0 if it could (the runtime dies first when a
	// job's memory limit refuses it).
	testproc.Register("alloc", func(args []string) int {
		n, _ := strconv.Atoi(args[0])
		var keep [][]byte
		for range n {
			b := make([]byte, 1<<20)
			for i := 0; i < len(b); i += 4096 {
				b[i] = 1
			}
			keep = append(keep, b)
		}
		fmt.Println("allocated", len(keep))
		return 0
	})
	// spin D: keeps one CPU busy for D, then exits 0.
	testproc.Register("spin", func(args []string) int {
		d, _ := time.ParseDuration(args[0])
		for deadline := time.Now().Add(d); time.Now().Before(deadline); {
		}
		return 0
	})
}

// skipOnWine skips a test of a limit's effect under Wine, which enforces
// none.
func skipOnWine(t *testing.T) {
	t.Helper()
	if sys.UnderWine() {
		t.Skip("Wine enforces no job limit and accounts no job time: the workflow's Windows job runs this")
	}
}

// endedOf runs a session of the role engine with flags and the Engine's
// args, a status pipe, and returns its stdout, exit code and ended record.
func endedOf(t *testing.T, engine string, flags []string, engineArgs ...string) (string, int, map[string]any, string) {
	t.Helper()
	r, w := inheritablePipe(t, "w")
	flags = append(flags, "--status-fd", strconv.Itoa(int(w.Fd())))
	s := startSession(t, engine, args(flags, helperArgv(t, engineArgs...)), passHandle(w))
	out := s.rest()
	code := s.exitCode()
	w.Close()
	var ended map[string]any
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err == nil && m["event"] == "ended" {
			ended = m
		}
	}
	if ended == nil {
		t.Fatalf("no ended record; exit %d, stderr: %s", code, s.stderr.String())
	}
	return out, code, ended, s.stderr.String()
}

func TestLimitsUnderWineAreRefusedNamingWine(t *testing.T) {
	if !sys.UnderWine() {
		t.Skip("on Windows the job enforces the limits")
	}
	for _, flag := range [][]string{{"--max-tasks", "3"}, {"--max-memory", "64M"}, {"--max-cpu", "0.5"}} {
		_, code, ended, stderr := endedOf(t, "exit", flag, "0")
		if code != wire.ExitContainment || !strings.Contains(stderr, "Wine enforces no job limit") || ended["executed"] != false {
			t.Errorf("%v under Wine: exit %d, executed %v, stderr %q; want 125 naming Wine, nothing executed", flag, code, ended["executed"], stderr)
		}
	}
}

func TestLimitsWindowsCannotHoldAreRefused(t *testing.T) {
	for _, flag := range [][]string{{"--max-memory", "64M", "--max-swap", "1G"}, {"--cgroup-parent", `C:\x`}} {
		_, code, ended, stderr := endedOf(t, "exit", flag, "0")
		if code != wire.ExitContainment || ended["executed"] != false {
			t.Errorf("%v: exit %d, executed %v, stderr %q; want 125, nothing executed", flag, code, ended["executed"], stderr)
		}
	}
}

// TestMaxTasksBoundsTheJobsProcesses: under --max-tasks 3 the Engine and
// two of its five children run; the other three fail to start.
func TestMaxTasksBoundsTheJobsProcesses(t *testing.T) {
	skipOnWine(t)
	out, code, _, stderr := endedOf(t, "spawn", []string{"--max-tasks", "3"}, "5")
	if code != 0 || strings.TrimSpace(out) != "started 2" {
		t.Errorf("five children under --max-tasks 3: %q, exit %d, stderr %s; want started 2", out, code, stderr)
	}
}

// TestMaxMemoryBoundsTheJobsMemory: 256 MiB under --max-memory 64M cannot
// be committed: the Engine does not get to say "allocated".
func TestMaxMemoryBoundsTheJobsMemory(t *testing.T) {
	skipOnWine(t)
	out, code, ended, stderr := endedOf(t, "alloc", []string{"--max-memory", "64M"}, "256")
	if strings.Contains(out, "allocated") || code == 0 {
		t.Errorf("256 MiB under --max-memory 64M: %q, exit %d, stderr %s; want the allocation refused", out, code, stderr)
	}
	u, _ := ended["usage"].(map[string]any)
	if peak, _ := u["memory_peak_bytes"].(float64); peak <= 0 || peak > 80<<20 || u["memory_peak_source"] != "job" {
		t.Errorf("usage %v: want a peak of about 64 MiB at most, from the job", u)
	}
}

// TestMaxCPUCapsTheJobsCPUAndTheUsageCountsIt: a busy loop of 3 s under
// --max-cpu 0.5 uses at most 0.6 of the session's time, as the job's
// accounting tells it.
func TestMaxCPUCapsTheJobsCPUAndTheUsageCountsIt(t *testing.T) {
	skipOnWine(t)
	_, code, ended, stderr := endedOf(t, "spin", []string{"--max-cpu", "0.5"}, "3s")
	if code != 0 {
		t.Fatalf("exit %d, stderr %s", code, stderr)
	}
	u, _ := ended["usage"].(map[string]any)
	cpu, _ := u["cpu_ms"].(float64)
	wall, _ := ended["duration_ms"].(float64)
	if cpu <= 0 || cpu > 0.6*wall || u["cpu_source"] != "job" {
		t.Errorf("cpu_ms %v of duration_ms %v (%v): want at most 0.6 of it, from the job", cpu, wall, u)
	}
}

// TestUsageUnderWineIsAbsent: Wine's job times read 0; the record has no
// usage rather than a false one.
func TestUsageUnderWineIsAbsent(t *testing.T) {
	if !sys.UnderWine() {
		t.Skip("on Windows the job accounts the time (TestMaxCPUCapsTheJobsCPUAndTheUsageCountsIt)")
	}
	_, code, ended, _ := endedOf(t, "exit", nil, "0")
	if code != 0 || ended["usage"] != nil {
		t.Errorf("exit %d, usage %v; want no usage under Wine", code, ended["usage"])
	}
}
