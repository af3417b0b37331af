package winjob

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/windows"

	"github.com/session-starter/session-starter/internal/end"
	"github.com/session-starter/session-starter/internal/sys"
	"github.com/session-starter/session-starter/internal/testproc"
	"github.com/session-starter/session-starter/starter/launch"
)

func init() {
	// exit CODE
	testproc.Register("exit", func(args []string) int {
		code, _ := strconv.Atoi(args[0])
		return code
	})
	// sleep: stays until ended.
	testproc.Register("sleep", func([]string) int {
		time.Sleep(testproc.TooLong) // ended by the test long before
		return 0
	})
	// nest: makes a job of its own (nested in the one it runs in), starts
	// "sleep" in it, prints "PID VIA-ATTRIBUTE", then stays until ended.
	testproc.Register("nest", func([]string) int {
		j, err := New()
		if err != nil {
			fmt.Println("error", err)
			return 1
		}
		defer j.Close()
		p, err := j.StartSuspended(helperSpec("sleep"))
		if err != nil {
			fmt.Println("error", err)
			return 1
		}
		if err := p.Resume(); err != nil {
			fmt.Println("error", err)
			return 1
		}
		fmt.Println(p.PID, p.ViaAttribute)
		time.Sleep(testproc.TooLong) // ended by the test long before
		return 0
	})
}

func TestMain(m *testing.M) {
	testproc.RunHelper()
	os.Exit(m.Run())
}

// helperSpec describes the test binary as helper name, with inheritable
// copies of this process's stdout and stderr.
func helperSpec(name string, args ...string) Spec {
	exe, _ := os.Executable()
	self := windows.CurrentProcess()
	var out, errOut windows.Handle
	_ = windows.DuplicateHandle(self, windows.Handle(os.Stdout.Fd()), self, &out, 0, true, windows.DUPLICATE_SAME_ACCESS)
	_ = windows.DuplicateHandle(self, windows.Handle(os.Stderr.Fd()), self, &errOut, 0, true, windows.DUPLICATE_SAME_ACCESS)
	return Spec{
		App:     exe,
		CmdLine: windows.ComposeCommandLine(append([]string{exe}, args...)),
		Env:     append(os.Environ(), testproc.HelperVar+"="+name),
		Stdout:  out,
		Stderr:  errOut,
	}
}

func newJob(t *testing.T) *Job {
	t.Helper()
	j, err := New()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(j.Close) // the last handle: ends whatever a failed test left
	return j
}

func start(t *testing.T, j *Job, s Spec) *Process {
	t.Helper()
	p, err := j.StartSuspended(s)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	if err := p.Resume(); err != nil {
		t.Fatal(err)
	}
	return p
}

func wait(t *testing.T, h windows.Handle) {
	t.Helper()
	if ev, err := windows.WaitForSingleObject(h, uint32(testproc.TooLong/time.Millisecond)); err != nil || ev != windows.WAIT_OBJECT_0 {
		t.Fatalf("process still running %v later (%d, %v)", testproc.TooLong, ev, err)
	}
}

// quiet is a job's holder whose stop signal is sent to nothing: its
// grace ends when the job empties by itself, or when the end is hurried.
type quiet struct{ *Holder }

func (q quiet) Signal(sig syscall.Signal) error {
	if sig == Stop {
		return nil
	}
	return q.Holder.Signal(sig)
}

// endQuietly ends j through quiet under p, its stop signal sent to
// nothing.
func endQuietly(j *Job, p end.Plan) end.Report {
	p.Stop = Stop
	return end.End([]end.Holder{quiet{&Holder{Job: j, Code: 1}}}, p)
}

// TestThePortTellsTheJobEmptyWhenItsLastProcessExits: an end within a
// long grace returns, graceful, once the job's last process exits by
// itself: the port's packet wakes it, not the end of the grace.
func TestThePortTellsTheJobEmptyWhenItsLastProcessExits(t *testing.T) {
	j := newJob(t)
	p := start(t, j, helperSpec("exit", "4"))
	r := endQuietly(j, end.Plan{Grace: testproc.TooLong, Budget: testproc.TooLong})
	if r.Outcome != launch.Empty || !r.Graceful || r.Rounds != 0 || r.Elapsed > testproc.TooLong/2 {
		t.Fatalf("End() = %+v; want empty early in the grace, without termination", r)
	}
	if code, err := p.ExitCode(); err != nil || code != 4 {
		t.Errorf("ExitCode() = %d, %v; want 4", code, err)
	}
}

func TestTheJobListAttributeIsTaken(t *testing.T) {
	j := newJob(t)
	p := start(t, j, helperSpec("exit", "0"))
	if !p.ViaAttribute {
		t.Errorf("ViaAttribute = false: the process was assigned after its creation")
	}
}

// TestAProcessAssignedWhileSuspendedIsInTheJob covers the path for
// systems that refuse the job list attribute.
func TestAProcessAssignedWhileSuspendedIsInTheJob(t *testing.T) {
	j := newJob(t)
	p, err := j.start(helperSpec("sleep"), false)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	if p.ViaAttribute {
		t.Errorf("ViaAttribute = true for an assigned process")
	}
	if pids, err := j.PIDs(); err != nil || !slices.Contains(pids, p.PID) {
		t.Errorf("PIDs() = %v, %v; want %d among them", pids, err, p.PID)
	}
	if err := p.Resume(); err != nil {
		t.Fatal(err)
	}
	if err := (&Holder{Job: j, Code: 9}).Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	wait(t, p.Handle)
	if code, _ := p.ExitCode(); code != 9 {
		t.Errorf("exit code = %d, want 9 from TerminateJobObject", code)
	}
}

func TestClosingTheJobEndsItsProcesses(t *testing.T) {
	j, err := New()
	if err != nil {
		t.Fatal(err)
	}
	p := start(t, j, helperSpec("sleep"))
	j.Close()
	wait(t, p.Handle)
}

// TestANestedJobIsEndedWithItsOuterJob: a session whose launcher runs it
// in a job of its own (an IDE, a CI runner) still gets its job, and
// ending the launcher's job ends the session's processes too.
func TestANestedJobIsEndedWithItsOuterJob(t *testing.T) {
	outer := newJob(t)
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	s := helperSpec("nest")
	self := windows.CurrentProcess()
	if err := windows.DuplicateHandle(self, windows.Handle(w.Fd()), self, &s.Stdout, 0, true, windows.DUPLICATE_SAME_ACCESS); err != nil {
		t.Fatal(err)
	}
	nest := start(t, outer, s)
	_ = windows.CloseHandle(s.Stdout)
	w.Close()
	line, err := bufio.NewReader(r).ReadString('\n')
	if err != nil {
		t.Fatalf("read the nested starter's line: %q, %v", line, err)
	}
	f := strings.Fields(line)
	if len(f) != 2 || f[0] == "error" {
		t.Fatalf("nested job: %q", line)
	}
	if f[1] != "true" {
		t.Errorf("the nested job was joined by assignment, not by the attribute: %q", line)
	}
	pid, _ := strconv.Atoi(f[0])
	h, err := windows.OpenProcess(windows.SYNCHRONIZE|windows.PROCESS_TERMINATE, false, uint32(pid))
	if err != nil {
		t.Fatal(err)
	}
	defer windows.CloseHandle(h)
	if err := (&Holder{Job: outer, Code: 1}).Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	wait(t, nest.Handle)
	wait(t, h)
}

// TestASecondStopSignalEndsTheGraceOfAJob: the waiter on the job's port
// is woken by the session's second stop signal, and the job is
// terminated at once.
func TestASecondStopSignalEndsTheGraceOfAJob(t *testing.T) {
	j := newJob(t)
	p := start(t, j, helperSpec("sleep"))
	hurry := make(chan os.Signal) // unbuffered: sent while End waits
	go func() { hurry <- os.Interrupt }()
	r := endQuietly(j, end.Plan{Grace: testproc.TooLong, Budget: testproc.TooLong, Hurry: hurry, Stopped: true})
	if r.Outcome != launch.Empty || r.Graceful || r.Rounds < 1 {
		t.Fatalf("End() = %+v; want the job terminated and empty", r)
	}
	if r.Elapsed > testproc.TooLong/2 {
		t.Errorf("End() took %v, want the grace cut short", r.Elapsed)
	}
	wait(t, p.Handle)
	if code, _ := p.ExitCode(); code != 1 {
		t.Errorf("exit code = %d, want 1 from TerminateJobObject", code)
	}
}

// TestAStalePacketOnThePortIsNotTakenForTheJobsEnd: a packet left on the
// port (a wake of an earlier end) makes the end look at the job again,
// and it is still live: the grace goes on to its end.
func TestAStalePacketOnThePortIsNotTakenForTheJobsEnd(t *testing.T) {
	j := newJob(t)
	start(t, j, helperSpec("sleep"))
	if err := sys.PostQueuedCompletionStatus(j.port, 0); err != nil {
		t.Fatal(err)
	}
	const grace = 500 * time.Millisecond
	r := endQuietly(j, end.Plan{Grace: grace, Budget: testproc.TooLong})
	if r.Outcome != launch.Empty || r.Graceful || r.Rounds < 1 || r.Members != 1 {
		t.Fatalf("End() = %+v; want one member, terminated after the grace", r)
	}
	if r.Elapsed < grace {
		t.Errorf("End() took %v, want the whole grace of %v", r.Elapsed, grace)
	}
}

// TestAJobWithoutAConsoleGroupIsTerminatedWithoutGrace: the stop signal
// cannot be sent without a console process group, so the grace is
// skipped rather than waited out.
func TestAJobWithoutAConsoleGroupIsTerminatedWithoutGrace(t *testing.T) {
	j := newJob(t)
	p := start(t, j, helperSpec("sleep"))
	r := end.End([]end.Holder{&Holder{Job: j, Code: 3}}, end.Plan{Stop: Stop, Grace: testproc.TooLong, Budget: testproc.TooLong})
	if r.Outcome != launch.Empty || r.Graceful || r.Rounds < 1 || r.Seen[KindJob] != 1 {
		t.Fatalf("End() = %+v; want the job terminated and empty", r)
	}
	if r.Elapsed > testproc.TooLong/2 {
		t.Errorf("End() took %v, want the grace skipped", r.Elapsed)
	}
	wait(t, p.Handle)
	if code, _ := p.ExitCode(); code != 3 {
		t.Errorf("exit code = %d, want 3 from TerminateJobObject", code)
	}
}

// TestAJobThatOutlivesTheBudgetNamesItsProcesses: a job whose
// termination fails is reported with its processes as survivors.
func TestAJobThatOutlivesTheBudgetNamesItsProcesses(t *testing.T) {
	j := newJob(t)
	p := start(t, j, helperSpec("sleep"))
	r := end.End([]end.Holder{refusing{&Holder{Job: j}}}, end.Plan{Budget: 200 * time.Millisecond})
	if r.Outcome != launch.Survivors || len(r.Survivors) != 1 || r.Survivors[0].PID != p.PID {
		t.Fatalf("End() = %+v; want pid %d as the survivor", r, p.PID)
	}
}

// refusing is a job's holder whose termination fails.
type refusing struct{ *Holder }

func (refusing) Signal(syscall.Signal) error { return errors.New("no termination here") }

func TestCPURateIsInTenThousandthsOfTheWholeMachine(t *testing.T) {
	for _, c := range []struct {
		cpus float64
		n    int
		want uint32
	}{{0.5, 2, 2500}, {1, 4, 2500}, {4, 2, 10000}, {0.0001, 64, 1}, {1.5, 8, 1875}} {
		if got := CPURate(c.cpus, c.n); got != c.want {
			t.Errorf("CPURate(%v, %d) = %d, want %d", c.cpus, c.n, got, c.want)
		}
	}
}

// TestTheSystemTakesTheJobsLimitsAndTellsItsUsage: the limit structures
// are the system's size and layout (Wine checks them too, though it
// enforces none); their effect is tested by the session tests on Windows.
func TestTheSystemTakesTheJobsLimitsAndTellsItsUsage(t *testing.T) {
	j := newJob(t)
	if err := j.Limit(launch.Limits{MaxTasks: 5, MaxMemory: 64 << 20}); err != nil {
		t.Fatalf("Limit(processes, memory): %v", err)
	}
	if !sys.UnderWine() {
		// Wine refuses CPU rate control.
		if err := j.Limit(launch.Limits{MaxCPU: 0.5}); err != nil {
			t.Fatalf("Limit(cpu): %v", err)
		}
	}
	if _, err := j.Usage(); err != nil {
		t.Fatalf("Usage: %v", err)
	}
}
