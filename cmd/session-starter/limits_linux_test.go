package main

// Limits and accounting: --max-tasks, --max-memory, --max-cpu and
// --cgroup-parent, and the ended record's usage. The refusals and the CPU
// accounting run here; the limits themselves need the pids, memory and
// cpu controllers of a pure cgroup v2, which the kernels of scripts/vm
// have (this host's cgroup v2 offers none of them: those tests skip,
// saying so).

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/session-starter/session-starter/internal/testproc"
)

func init() {
	// burn MS: spin until this process has used MS of CPU time, or a
	// minute has passed (exit 1).
	testproc.Register("burn", func(args []string) int {
		ms, _ := strconv.Atoi(args[0])
		deadline := time.Now().Add(time.Minute)
		for time.Now().Before(deadline) {
			var ru syscall.Rusage
			_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
			if time.Duration(ru.Utime.Nano()+ru.Stime.Nano()) >= time.Duration(ms)*time.Millisecond {
				return 0
			}
		}
		return 1
	})
}

// limitSession runs session-starter with args (an "EXE" among them is
// the test binary, playing the helper role), a status descriptor on fd
// 3, and, when cg is not empty, born into the cgroup directory cg. It
// returns the wait status, the ended record, stderr and stdout.
func limitSession(t *testing.T, mark, role, cg string, args ...string) (syscall.WaitStatus, map[string]any, text, string) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for i, a := range args {
		if a == "EXE" {
			args[i] = exe
		}
	}
	cmd := exec.Command(binary, append([]string{"--status-fd", "3"}, args...)...)
	cmd.Env = append(os.Environ(), markVar+"="+mark, "GORACE=atexit_sleep_ms=0")
	if role != "" {
		cmd.Env = append(cmd.Env, testproc.HelperEnv(t, role))
	}
	cmd.ExtraFiles = []*os.File{w}
	if cg != "" {
		fd, err := unix.Open(cg, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer unix.Close(fd)
		cmd.SysProcAttr = &syscall.SysProcAttr{UseCgroupFD: true, CgroupFD: fd}
	}
	s := startCmd(t, mark, cmd)
	w.Close()
	out := s.rest()
	ws := s.wait()
	recs := statusRecords(t, r)
	if len(recs) == 0 || recs[len(recs)-1]["event"] != "ended" {
		t.Fatalf("status records %v: want an ended record last; stderr: %s", recs, s.stderr)
	}
	return ws, recs[len(recs)-1], text(s.stderr.String()), out
}

// limitCgroup is [testproc.LimitCgroup] where cgroup mode works here.
func limitCgroup(t *testing.T) string {
	t.Helper()
	cgroupPlace(t)
	return testproc.LimitCgroup(t)
}

// usageOf returns the usage object of an ended record, or nil.
func usageOf(ended map[string]any) map[string]any {
	u, _ := ended["usage"].(map[string]any)
	return u
}

func TestALimitAskedForInGroupModeIsAUsageErrorAndRunsNothing(t *testing.T) {
	for _, flag := range [][]string{{"--max-tasks", "20"}, {"--max-memory", "64M"}, {"--max-cpu", "0.5"}, {"--call-limits", "memory"}, {"--cgroup-parent", "/sys/fs/cgroup"}} {
		t.Run(flag[0], func(t *testing.T) {
			mark := newMark(t)
			marker := filepath.Join(t.TempDir(), "ran")
			args := append([]string{"--containment", "group"}, flag...)
			ws, ended, stderr, _ := limitSession(t, mark, "", "", append(args, "--", "touch", marker)...)
			wantExit(t, ws, 2, stderr)
			if !strings.Contains(string(stderr), flag[0]+" needs cgroup mode") {
				t.Errorf("stderr %q, want it to say %s needs cgroup mode", stderr, flag[0])
			}
			if ended["executed"] != false {
				t.Errorf("ended %v, want executed false", ended)
			}
			if _, err := os.Stat(marker); err == nil {
				t.Error("the Engine ran")
			}
		})
	}
}

func TestBadLimitsAreUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{"--max-tasks", "0"}, {"--max-tasks", "-3"}, {"--max-memory", "0"}, {"--max-memory", "12X"},
		{"--max-memory", "1e3"}, {"--max-cpu", "0"}, {"--max-cpu", "0.001"}, {"--max-cpu", "half"},
		{"--max-swap", "1G"}, {"--cgroup-parent", ""}, {"--call-limits", "swap"}, {"--call-limits", "tasks,"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			out, err := exec.Command(binary, append(args, "--", "true")...).CombinedOutput()
			if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 {
				t.Fatalf("session-starter %v: %v, want exit 2; output: %s", args, err, out)
			}
		})
	}
}

// onCgroupV1 reports whether every controller of list (", "-separated)
// is bound to a cgroup v1 hierarchy here: named in a line of
// /proc/self/cgroup other than the 0:: one.
func onCgroupV1(list string) bool {
	b, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return false
	}
	var v1 []string
	for line := range strings.SplitSeq(string(b), "\n") {
		if f := strings.SplitN(line, ":", 3); len(f) == 3 && f[0] != "0" {
			v1 = append(v1, strings.Split(f[1], ",")...)
		}
	}
	for c := range strings.SplitSeq(list, ", ") {
		if !slices.Contains(v1, c) {
			return false
		}
	}
	return true
}

// TestLimitsWhoseControllerIsNotOfferedExit125AndRunNothing: where a
// controller is bound to cgroup v1 (a hybrid host), the report says so
// instead of advising delegation.
func TestLimitsWhoseControllerIsNotOfferedExit125AndRunNothing(t *testing.T) {
	needsCgroup(t)
	_, own := cgroupPlace(t)
	// A cgroup below one that enables nothing for its children is
	// offered no controller: --cgroup-parent names it.
	parent := path.Join(own, fmt.Sprintf("limtest-%d-%d", os.Getpid(), rand.Uint32()))
	if err := os.MkdirAll(path.Join(parent, "bare"), 0o755); err != nil {
		t.Skipf("cannot make a cgroup in %s: %v", own, err)
	}
	t.Cleanup(func() { testproc.RemoveCgroup(t, parent) })
	for _, c := range []struct{ flag, value, controller string }{
		{"--max-tasks", "20", "pids"}, {"--max-memory", "64M", "memory"}, {"--max-cpu", "0.5", "cpu"},
		{"--call-limits", "tasks,memory", "pids, memory"},
	} {
		t.Run(c.flag, func(t *testing.T) {
			mark := newMark(t)
			marker := filepath.Join(t.TempDir(), "ran")
			ws, ended, stderr, _ := limitSession(t, mark, "", "", "--cgroup-parent", path.Join(parent, "bare"), c.flag, c.value, "--", "touch", marker)
			wantExit(t, ws, 125, stderr)
			if onCgroupV1(c.controller) {
				// No subtree_control or delegation can offer it.
				if !strings.Contains(string(stderr), "controller on cgroup v1: "+c.controller+" bound to a v1 hierarchy here") ||
					!strings.Contains(string(stderr), "only the host can change") || strings.Contains(string(stderr), "Delegate=yes") {
					t.Errorf("stderr %q, want it to say the %s controller is on cgroup v1, and no delegation advice", stderr, c.controller)
				}
			} else if !strings.Contains(string(stderr), "controller not available: "+c.controller) || !strings.Contains(string(stderr), "subtree_control") {
				t.Errorf("stderr %q, want it to name the %s controller and what to do", stderr, c.controller)
			}
			if ended["executed"] != false {
				t.Errorf("ended %v, want executed false", ended)
			}
			if _, err := os.Stat(marker); err == nil {
				t.Error("the Engine ran")
			}
			// --explain says so, with nothing started.
			out, err := exec.Command(binary, "--explain", "--cgroup-parent", path.Join(parent, "bare"), c.flag, c.value).CombinedOutput()
			if err != nil || !strings.Contains(string(out), "limits: no\n  a session would exit 125") || !strings.Contains(string(out), c.controller) {
				t.Errorf("--explain %s: %v; output:\n%s\nwant limits: no, naming %s", c.flag, err, out, c.controller)
			}
			if onCgroupV1(c.controller) && (!strings.Contains(string(out), "on cgroup v1") || strings.Contains(string(out), "Delegate=yes")) {
				t.Errorf("--explain %s: output:\n%s\nwant it to say %s is on cgroup v1, with no advice to delegate", c.flag, out, c.controller)
			}
		})
	}
}

// TestUsageCountsTheCPUOfTheWholeTreeInBothModes: two processes burn 400
// ms of CPU each, one the Engine's background child; the ended record's
// usage counts both, from the session cgroup's cpu.stat in cgroup mode
// and from the reaps' rusage in group mode, and has no peaks in group
// mode, which has no counter for them.
func TestUsageCountsTheCPUOfTheWholeTreeInBothModes(t *testing.T) {
	for _, mode := range []string{"cgroup", "group"} {
		t.Run(mode, func(t *testing.T) {
			if mode == "cgroup" {
				needsCgroup(t)
			}
			mark := newMark(t)
			ws, ended, stderr, _ := limitSession(t, mark, "burn", "", "--containment", mode, "--", "sh", "-c", `"$0" 400 & "$0" 400; wait`, "EXE")
			wantExit(t, ws, 0, stderr)
			u := usageOf(ended)
			source := map[string]string{"cgroup": "cpu.stat", "group": "rusage"}[mode]
			cpu, _ := u["cpu_ms"].(float64)
			if cpu < 750 || u["cpu_source"] != source {
				t.Errorf("usage %v, want cpu_ms of at least 750 (two burners of 400 ms) from %s", u, source)
			}
			if mode == "group" && (u["memory_peak_bytes"] != nil || u["tasks_peak"] != nil) {
				t.Errorf("group-mode usage %v: want no peaks (no counter for a group)", u)
			}
			noSurvivors(t, mark)
		})
	}
}

// TestMaxTasksHoldsAForkLoopAndTheSessionStillEnds: up to 2,000 sleeps
// forked in a loop under --max-tasks 20: the tree never had more than 20
// tasks (pids.peak), the refused forks are counted, the session ends
// empty and nothing is left.
func TestMaxTasksHoldsAForkLoopAndTheSessionStillEnds(t *testing.T) {
	cg := limitCgroup(t)
	mark := newMark(t)
	loop := `n=0; while [ $n -lt 2000 ]; do sleep 60 & n=$((n+1)); done 2>/dev/null; exit 0`
	ws, ended, stderr, _ := limitSession(t, mark, "", cg, "--max-tasks", "20", "--timeout", "30s", "--", "sh", "-c", loop)
	if ended["outcome"] != "empty" {
		t.Fatalf("ended %v, want the session ended empty; %s; stderr: %s", ended, statusString(ws), stderr)
	}
	u := usageOf(ended)
	peak, _ := u["tasks_peak"].(float64)
	refused, _ := u["forks_refused"].(float64)
	if peak < 2 || peak > 20 || u["tasks_peak_source"] != "pids.peak" || refused < 1 {
		t.Errorf("usage %v: want tasks_peak at most 20 from pids.peak and forks refused", u)
	}
	if !strings.Contains(string(stderr), "the task limit refused") {
		t.Errorf("stderr %q: want the refused forks told", stderr)
	}
	noSurvivors(t, mark)
}

// TestMaxMemoryOOMKillsInsideTheSessionAndSaysSo: an Engine holding 256
// MiB (a shell's command substitution) under --max-memory 64M is
// OOM-killed inside the session: SIGKILL is mirrored, the record counts
// the OOM kill and keeps the reason, stderr says out of memory.
func TestMaxMemoryOOMKillsInsideTheSessionAndSaysSo(t *testing.T) {
	cg := limitCgroup(t)
	mark := newMark(t)
	ws, ended, stderr, _ := limitSession(t, mark, "", cg, "--max-memory", "64M", "--", "sh", "-c",
		`x=$(head -c 268435456 /dev/zero | tr '\000' a); echo ${#x}`)
	if !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Errorf("session-starter ended with %s, want the Engine's SIGKILL mirrored; stderr: %s", statusString(ws), stderr)
	}
	if oom, _ := ended["oom_kills"].(float64); oom < 1 || ended["reason"] != "engine-exit" || ended["signal"] != "KILL" {
		t.Errorf("ended %v: want oom_kills ≥ 1, reason engine-exit, signal KILL", ended)
	}
	if peak, _ := usageOf(ended)["memory_peak_bytes"].(float64); peak <= 0 || peak > 64<<20 {
		t.Errorf("usage %v: want a memory peak of at most 64 MiB", usageOf(ended))
	}
	if !strings.Contains(string(stderr), "out of memory") {
		t.Errorf("stderr %q: want it to say out of memory", stderr)
	}
	noSurvivors(t, mark)
}

// TestMaxCPUBoundsTheTreesCPUTime: a busy loop of 3 s under --max-cpu 0.5
// uses at most 0.6 of the session's time.
func TestMaxCPUBoundsTheTreesCPUTime(t *testing.T) {
	cg := limitCgroup(t)
	mark := newMark(t)
	ws, ended, stderr, _ := limitSession(t, mark, "", cg, "--max-cpu", "0.5", "--", "sh", "-c", `timeout 3 sh -c 'while :; do :; done'; exit 0`)
	wantExit(t, ws, 0, stderr)
	cpu, _ := usageOf(ended)["cpu_ms"].(float64)
	wall, _ := ended["duration_ms"].(float64)
	if cpu <= 0 || cpu > 0.6*wall {
		t.Errorf("cpu_ms %v over duration_ms %v: want at most 0.6 of it", cpu, wall)
	}
	noSurvivors(t, mark)
}

// TestAStarterAloneInItsCgroupMovesIntoALeafForAMemoryLimit: the starter
// born alone in a cgroup moves itself into a leaf of its own there, so
// that the memory controller can be enabled for the session cgroup, and
// at the end moves back and removes the leaf.
func TestAStarterAloneInItsCgroupMovesIntoALeafForAMemoryLimit(t *testing.T) {
	cg := limitCgroup(t)
	mark := newMark(t)
	ws, _, stderr, out := limitSession(t, mark, "", cg, "--max-memory", "256M", "--", "sh", "-c",
		`c=$(sed -n 's/^0:://p' /proc/self/cgroup); echo "${c%/*}"; sed -n 's/^0:://p' /proc/$PPID/cgroup; cat "`+mountOf(t)+`${c%/*}/memory.max"`)
	wantExit(t, ws, 0, stderr)
	own := strings.TrimPrefix(cg, mountOf(t))
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 3 || path.Dir(lines[0]) != own || !strings.HasSuffix(lines[1], ".supervisor") || path.Dir(lines[1]) != own || lines[2] != strconv.Itoa(256<<20) {
		t.Errorf("the Engine's cgroup, session-starter's and memory.max: %q; want a session cgroup and a supervisor leaf in %s, and 268435456", lines, own)
	}
	entries, err := os.ReadDir(cg)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.IsDir() {
			t.Errorf("%s left in %s after the session", e.Name(), cg)
		}
	}
	if b, _ := os.ReadFile(path.Join(cg, "cgroup.subtree_control")); strings.Contains(string(b), "memory") {
		t.Errorf("%s's subtree_control %q after the session: want memory off again", cg, b)
	}
	// --explain, alone in the same cgroup, says it would move.
	fd, err := unix.Open(cg, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fd)
	explain := exec.Command(binary, "--explain", "--max-memory", "256M")
	explain.SysProcAttr = &syscall.SysProcAttr{UseCgroupFD: true, CgroupFD: fd}
	if b, err := explain.CombinedOutput(); err != nil || !strings.Contains(string(b), "limits: yes\n  session-starter is alone in its cgroup: it would move") {
		t.Errorf("--explain --max-memory alone in a cgroup: %v; output:\n%s", err, b)
	}
}

// TestAStarterSharingItsCgroupRefusesAMemoryLimitNamingTheOther: with a
// sleep beside it in its cgroup, --max-memory exits 125 naming the sleep
// and the ways out, and nothing is executed.
func TestAStarterSharingItsCgroupRefusesAMemoryLimitNamingTheOther(t *testing.T) {
	cg := limitCgroup(t)
	mark := newMark(t)
	sleep := exec.Command("sleep", "600")
	if err := sleep.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sleep.Process.Kill(); _ = sleep.Wait() })
	if err := os.WriteFile(path.Join(cg, "cgroup.procs"), []byte(strconv.Itoa(sleep.Process.Pid)), 0); err != nil {
		t.Fatal(err)
	}
	marker := filepath.Join(t.TempDir(), "ran")
	ws, ended, stderr, _ := limitSession(t, mark, "", cg, "--max-memory", "64M", "--", "touch", marker)
	wantExit(t, ws, 125, stderr)
	if !strings.Contains(string(stderr), fmt.Sprintf("%d (sleep)", sleep.Process.Pid)) || !strings.Contains(string(stderr), "--cgroup-parent") {
		t.Errorf("stderr %q: want the sleep named and --cgroup-parent offered", stderr)
	}
	if ended["executed"] != false {
		t.Errorf("ended %v, want executed false", ended)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("the Engine ran")
	}
}

// TestCgroupParentHoldsTheLimitWithoutMovingTheStarter: with
// --cgroup-parent naming an empty cgroup, the session cgroup is made
// there with the limits, and the starter stays in its own cgroup.
func TestCgroupParentHoldsTheLimitWithoutMovingTheStarter(t *testing.T) {
	cg := limitCgroup(t)
	// The delegated cgroup with no process: it offers the controllers
	// to the cgroups made in it.
	if err := os.WriteFile(path.Join(cg, "cgroup.subtree_control"), []byte("+cpu +memory +pids"), 0); err != nil {
		t.Fatal(err)
	}
	parent := path.Join(cg, "sessions")
	if err := os.Mkdir(parent, 0o755); err != nil {
		t.Fatal(err)
	}
	mark := newMark(t)
	s := start(t, mark, []string{"--cgroup-parent", parent, "--max-memory", "64M", "--max-tasks", "9", "--", "sh", "-c",
		`c=$(sed -n 's/^0:://p' /proc/self/cgroup); d="` + mountOf(t) + `${c%/*}"; echo "$d"; cat "$d/memory.max" "$d/pids.max"; sed -n 's/^0:://p' /proc/$PPID/cgroup`})
	dir, mem, tasks, starterCg := s.line(), s.line(), s.line(), s.line()
	wantExit(t, s.wait(), 0, s.stderr)
	if path.Dir(dir) != parent || mem != strconv.Itoa(64<<20) || tasks != "9" {
		t.Errorf("the Engine's cgroup %s with memory.max %s, pids.max %s; want one in %s with 67108864 and 9", dir, mem, tasks, parent)
	}
	if starterCg != engineCgroup(t, os.Getpid()) {
		t.Errorf("session-starter in %s, want it left in its own cgroup %s", starterCg, engineCgroup(t, os.Getpid()))
	}
	noSurvivors(t, mark)
}

// mountOf is the cgroup2 mount point.
func mountOf(t *testing.T) string {
	t.Helper()
	m, _ := cgroupPlace(t)
	return m
}

// TestASIGKILLedStarterLeavesItsLeafAndTheControllersOn pins a limit of
// the move: a starter with a memory limit SIGKILLed leaves its supervisor
// leaf (the guard ends the session and exits, and nobody moves back) and
// the memory controller on in its cgroup, which then takes no process of
// its own (EBUSY); the recipe of the manual (remove the leaf, turn the
// controller off) makes it usable again.
func TestASIGKILLedStarterLeavesItsLeafAndTheControllersOn(t *testing.T) {
	cg := limitCgroup(t)
	mark := newMark(t)
	fd, err := unix.Open(cg, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fd)
	cmd := exec.Command(binary, "--ack", "--max-memory", "256M", "--", "sleep", "600")
	cmd.Env = append(os.Environ(), markVar+"="+mark)
	cmd.SysProcAttr = &syscall.SysProcAttr{UseCgroupFD: true, CgroupFD: fd}
	s := startCmd(t, mark, cmd)
	engine := s.ack()
	pidfd, err := unixPidfdOpen(engine)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(pidfd)
	guardfd, err := unixPidfdOpen(guardOf(t, cmd.Process.Pid))
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(guardfd)
	s.signal(syscall.SIGKILL)
	s.wait()
	awaitExit(t, pidfd, "the Engine, ended by the guard")
	awaitExit(t, guardfd, "the guard, once the session is over")
	var leaves []string
	entries, _ := os.ReadDir(cg)
	for _, e := range entries {
		if e.IsDir() && strings.HasSuffix(e.Name(), ".supervisor") {
			leaves = append(leaves, e.Name())
		}
	}
	sub, _ := os.ReadFile(path.Join(cg, "cgroup.subtree_control"))
	if len(leaves) != 1 || !strings.Contains(string(sub), "memory") {
		t.Fatalf("after the SIGKILL: leaves %v, subtree_control %q; want the dead starter's leaf and memory on", leaves, sub)
	}
	join := exec.Command("true")
	join.SysProcAttr = &syscall.SysProcAttr{UseCgroupFD: true, CgroupFD: fd}
	if err := join.Run(); !errors.Is(err, syscall.EBUSY) {
		t.Errorf("a process born into %s with memory on below it: %v, want EBUSY", cg, err)
	}
	// The manual's recipe.
	if err := os.Remove(path.Join(cg, leaves[0])); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path.Join(cg, "cgroup.subtree_control"), []byte("-memory"), 0); err != nil {
		t.Fatal(err)
	}
	ws, _, stderr, _ := limitSession(t, mark, "", cg, "--max-memory", "256M", "--", "true")
	wantExit(t, ws, 0, stderr)
}
