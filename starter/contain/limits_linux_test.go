package contain

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/session-starter/session-starter/internal/cgroup"
	"github.com/session-starter/session-starter/internal/testproc"
	"github.com/session-starter/session-starter/starter"
	"github.com/session-starter/session-starter/starter/launch"
)

// The limits tests run an Engine (this binary, as "limits-engine") in a
// real session in cgroup mode whose --call-limits are given; it makes
// one call with limits and reports what it saw.

type limitsReport struct {
	Err      string
	Executed Executed
	Tree     TreeState
	Signal   string // the leader's, "" if it exited
	Usage    launch.Usage
	OOMKills *int64 // Usage.OOMKills, which its JSON leaves out
	Cgroup   string
	Elapsed  time.Duration
	ForkedOK bool // the Engine could still fork after the call
}

func init() {
	testproc.Register("limits-engine", limitsEngine)
	testproc.Register("limits-session", limitsSession)
}

// limitsSession runs limitsEngine (args[1:]) in a session in cgroup mode
// whose calls may set the limits of the kinds args[0] names ("-": none).
func limitsSession(args []string) int {
	var kinds []string
	if args[0] != "-" {
		kinds = strings.Split(args[0], ",")
	}
	return runSession("limits-engine", args[1:], starter.Options{Containment: launch.ContainCgroup, Limits: launch.Limits{Calls: kinds}})
}

// limitsEngine runs args[2] as a contained shell call with the limits of
// args[1] (JSON), its tree ended at the leader's exit, and writes the
// report to args[0].
func limitsEngine(args []string) int {
	var rep limitsReport
	var lim launch.Limits
	if err := json.Unmarshal([]byte(args[1]), &lim); err != nil {
		rep.Err = err.Error()
	} else {
		c := Command(context.Background(), "sh", "-c", args[2])
		c.Limits, c.EndOnExit = lim, true
		began := time.Now()
		err := c.Run()
		rep.Elapsed = time.Since(began)
		var ee *exec.ExitError
		if err != nil && !errors.As(err, &ee) {
			rep.Err = err.Error()
		}
		if c.ProcessState != nil {
			if ws := c.ProcessState.Sys().(syscall.WaitStatus); ws.Signaled() {
				rep.Signal = ws.Signal().String()
			}
		}
		r := c.Result()
		rep.Executed, rep.Tree, rep.Usage, rep.OOMKills, rep.Cgroup = r.Executed, r.Tree, r.Usage, r.Usage.OOMKills, r.Cgroup
		rep.ForkedOK = exec.Command("true").Run() == nil
	}
	b, _ := json.Marshal(rep)
	_ = os.WriteFile(args[0], b, 0o644)
	return 0
}

// runLimits runs limitsEngine in a session started in the cgroup dir
// (this process's own if ""), the calls allowed the kinds given, one call
// of script with lim; it returns the report, or the session's output if
// the session failed.
func runLimits(t *testing.T, dir string, kinds string, lim launch.Limits, script string) (limitsReport, string) {
	t.Helper()
	report := filepath.Join(t.TempDir(), "report")
	spec, _ := json.Marshal(lim)
	cmd := testproc.HelperCommand(t, "limits-session", kinds, report, string(spec), script)
	_ = testproc.HelperEnv(t, "limits-engine") // the session's Engine plays it
	if dir != "" {
		fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer unix.Close(fd)
		cmd.SysProcAttr = &syscall.SysProcAttr{UseCgroupFD: true, CgroupFD: fd}
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		return limitsReport{}, fmt.Sprintf("%v: %s", err, out)
	}
	b, err := os.ReadFile(report)
	if err != nil {
		t.Fatalf("no report (%v); the session said: %s", err, out)
	}
	var rep limitsReport
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	return rep, ""
}

// TestACallsLimitsOutsideASessionFailAndNothingRuns: this test process
// is in no session: a call with a limit is refused before anything runs,
// and not handed to the spawn helper, which has no cgroup to give it.
func TestACallsLimitsOutsideASessionFailAndNothingRuns(t *testing.T) {
	t.Setenv("SESSION_STARTER_SESSION", "")
	os.Unsetenv("SESSION_STARTER_SESSION")
	marker := filepath.Join(t.TempDir(), "ran")
	c := Command(context.Background(), "touch", marker)
	c.Limits = launch.Limits{MaxTasks: 5}
	err := c.Start()
	if err == nil || !strings.Contains(err.Error(), "cannot be enforced") || !strings.Contains(err.Error(), "not in a session in cgroup mode") {
		t.Fatalf("Start = %v, want the limits refused for want of a session", err)
	}
	if c.Result().Executed != NotStarted || c.Result().Notice != "" {
		t.Errorf("result %+v: want NotStarted and no spawn-helper notice", c.Result())
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("the call ran")
	}
}

// TestACallsLimitsThatNoKernelTakesAreRefused: a negative limit, swap
// without memory and a session's Calls field fail Start before anything
// runs.
func TestACallsLimitsThatNoKernelTakesAreRefused(t *testing.T) {
	for _, lim := range []launch.Limits{{MaxTasks: -1}, {MaxSwap: 1 << 20}, {Calls: []string{"memory"}}, {MaxCPU: 0.001}} {
		c := Command(context.Background(), "true")
		c.Limits = lim
		if err := c.Start(); err == nil || !strings.HasPrefix(err.Error(), "contain:") {
			t.Errorf("Start with %+v = %v, want a refusal", lim, err)
			if err == nil {
				_ = c.Wait()
			}
		}
	}
}

// TestACallsLimitsInASessionWithoutTheControllerFailAndNothingRuns: a
// cgroup-mode session whose cgroup has no memory controller (its parent
// offers none, and --call-limits did not ask for it) refuses a call's
// memory limit naming the controller and the flag; the Engine goes on.
func TestACallsLimitsInASessionWithoutTheControllerFailAndNothingRuns(t *testing.T) {
	if place, err := cgroup.Locate(); err != nil {
		t.Skipf("no cgroup mode here: %v", err)
	} else if b, err := os.ReadFile(path.Join(place.Dir, "cgroup.subtree_control")); err == nil && strings.Contains(string(b), "memory") {
		t.Skipf("this process's cgroup offers the memory controller to the session cgroups it holds (%q)", b)
	}
	marker := filepath.Join(t.TempDir(), "ran")
	rep, failed := runLimits(t, "", "-", launch.Limits{MaxMemory: 64 << 20}, "touch "+marker)
	if failed != "" {
		if strings.Contains(failed, "cgroup") {
			t.Skipf("no cgroup mode here: %s", failed)
		}
		t.Fatal(failed)
	}
	if rep.Executed != NotStarted || !strings.Contains(rep.Err, "memory") || !strings.Contains(rep.Err, "--call-limits") || !rep.ForkedOK {
		t.Errorf("report %+v: want NotStarted naming memory and --call-limits, the Engine going on", rep)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("the call ran")
	}
}

// TestACallsTaskLimitHoldsItsForkLoopAndNotTheEngine: with --call-limits
// tasks, a call with MaxTasks 20 forks in a loop (at most 2,000 sleeps):
// never more than 20 of its tasks live at once, its forks refused are
// counted, its tree ends whole, and the Engine outside the call's cgroup
// still forks. The session starts alone in a cgroup, so the starter moves
// into a supervisor leaf to give the session cgroup the controller.
func TestACallsTaskLimitHoldsItsForkLoopAndNotTheEngine(t *testing.T) {
	dir := testproc.LimitCgroup(t)
	rep, failed := runLimits(t, dir, "tasks", launch.Limits{MaxTasks: 20},
		`n=0; while [ $n -lt 2000 ]; do sleep 60 & n=$((n+1)); done 2>/dev/null; exit 0`)
	if failed != "" {
		t.Fatal(failed)
	}
	u := rep.Usage
	if rep.Err != "" || rep.Tree != Killed || u.TasksPeak == nil || *u.TasksPeak > 20 || *u.TasksPeak < 2 ||
		u.ForksRefused == nil || *u.ForksRefused < 1 || !rep.ForkedOK {
		t.Errorf("report %+v (tasks peak %v, forks refused %v): want at most 20 tasks, forks refused, Killed, the Engine forking",
			rep, deref(u.TasksPeak), deref(u.ForksRefused))
	}
}

// TestACallsMemoryLimitOOMKillsInsideTheCallOnly: a call holding 256 MiB
// under MaxMemory 64M is OOM-killed inside its own cgroup: its leader
// dies of SIGKILL, its usage counts the OOM kill and a peak of at most
// 64 MiB, and the Engine lives on to report it.
func TestACallsMemoryLimitOOMKillsInsideTheCallOnly(t *testing.T) {
	dir := testproc.LimitCgroup(t)
	rep, failed := runLimits(t, dir, "memory", launch.Limits{MaxMemory: 64 << 20},
		`x=$(head -c 268435456 /dev/zero | tr '\000' a); echo ${#x}`)
	if failed != "" {
		t.Fatal(failed)
	}
	u := rep.Usage
	if rep.Signal != "killed" || rep.OOMKills == nil || *rep.OOMKills < 1 || u.MemoryPeakBytes == nil || *u.MemoryPeakBytes > 64<<20 ||
		u.MemoryPeakSource != "memory.peak" || !rep.ForkedOK {
		t.Errorf("report %+v (oom kills %v, peak %v): want the leader SIGKILLed, an OOM kill, a peak of at most 64 MiB, the Engine going on",
			rep, deref(rep.OOMKills), deref(u.MemoryPeakBytes))
	}
}

// TestACallsCPULimitBoundsItsCPUTime: a busy loop of 3 s in a call with
// MaxCPU 0.5 uses at most 0.6 of the call's time.
func TestACallsCPULimitBoundsItsCPUTime(t *testing.T) {
	dir := testproc.LimitCgroup(t)
	rep, failed := runLimits(t, dir, "cpu", launch.Limits{MaxCPU: 0.5}, `timeout 3 sh -c 'while :; do :; done'; exit 0`)
	if failed != "" {
		t.Fatal(failed)
	}
	u := rep.Usage
	if rep.Err != "" || u.CPUMS == nil || u.CPUSource != "cpu.stat" || *u.CPUMS <= 0 || *u.CPUMS > 0.6*float64(rep.Elapsed)/float64(time.Millisecond) {
		t.Errorf("report %+v (cpu %v ms over %v): want at most 0.6 of it, from cpu.stat", rep, deref(u.CPUMS), rep.Elapsed)
	}
}

func deref[T any](p *T) any {
	if p == nil {
		return nil
	}
	return *p
}
