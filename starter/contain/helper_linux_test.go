//go:build linux && !portable

package contain

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/session-starter/session-starter/internal/mark"
	"github.com/session-starter/session-starter/internal/proc"
	"github.com/session-starter/session-starter/internal/sys"
	"github.com/session-starter/session-starter/internal/testproc"
	"golang.org/x/sys/unix"
)

// faultVar makes a helper this test binary plays fail at one step of its
// handshake: "PHASE:ACTION" or "PHASE:ACTION:FILE" (the fault happens only
// in the helper that creates FILE, so only once). PHASE is one of
// faultAt's; ACTION is kill (the helper SIGKILLs itself) or pause (it
// SIGSTOPs itself).
const faultVar = "SESSION_STARTER_HELPER_FAULT_FOR_TESTS"

func init() { faultAt = faultFromEnv }

// faultFromEnv applies the fault of faultVar at phase.
func faultFromEnv(phase string) {
	fault := strings.SplitN(os.Getenv(faultVar), ":", 3)
	if len(fault) < 2 || fault[0] != phase {
		return
	}
	if len(fault) == 3 {
		f, err := os.OpenFile(fault[2], os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
		if err != nil {
			return // another helper had the fault
		}
		_ = f.Close()
	}
	// To this thread: a signal to the process may be taken by another
	// thread while this one runs on into the next step.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	switch fault[1] {
	case "kill":
		_ = sys.SignalThread(syscall.SIGKILL)
	case "pause":
		_ = sys.SignalThread(syscall.SIGSTOP)
	}
}

// withHelper makes this test process an Engine outside any session whose
// binary dispatches the helper mode (TestMain runs RunHidden, as
// IfRequested does), and ends its helper after the test.
func withHelper(t *testing.T) {
	t.Helper()
	if v, ok := os.LookupEnv(mark.Var); ok {
		t.Setenv(mark.Var, v)
		_ = os.Unsetenv(mark.Var)
	}
	dispatched.Store(true)
	t.Cleanup(func() {
		dispatched.Store(false)
		dropHelper()
	})
}

// dropHelper abandons this process's helper and waits until it was
// reaped: it ends what it held and exits.
func dropHelper() {
	linkMu.Lock()
	l := current
	current = nil
	linkMu.Unlock()
	if l != nil {
		l.abandon(false)
		<-l.ended
	}
}

func liveHelperPID(t *testing.T) int {
	t.Helper()
	linkMu.Lock()
	defer linkMu.Unlock()
	if current == nil || current.gone.Load() {
		t.Fatal("no live spawn helper")
	}
	return current.helper.Pid
}

// parentOf is pid's parent, from /proc.
func parentOf(t *testing.T, pid int) int {
	t.Helper()
	st, err := proc.ReadStat(pid)
	if err != nil {
		t.Fatalf("stat %d: %v", pid, err)
	}
	return st.PPID
}

func TestACallOutsideASessionIsTheHelpersChild(t *testing.T) {
	withHelper(t)
	c := Command(context.Background(), "sh", "-c", `echo $PPID; echo out; exit 3`)
	out, err := c.Output()
	var ee *ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 3 {
		t.Fatalf("Output() error = %v, want the helper's ExitError with status 3", err)
	}
	lines := strings.Fields(string(out))
	if len(lines) != 2 || lines[1] != "out" {
		t.Fatalf("Output() = %q", out)
	}
	if ppid, _ := strconv.Atoi(lines[0]); ppid != liveHelperPID(t) {
		t.Errorf("the call's parent is %s, want the helper %d", lines[0], liveHelperPID(t))
	}
	r := c.Result()
	if r.Executed != Started || r.Tree != Released || r.Group != c.Process.Pid || r.Notice != "" || c.ProcessState != nil {
		t.Errorf("Result() = %+v, ProcessState %v; want Started, Released, its group, no notice", r, c.ProcessState)
	}
}

// TestAHelpedCallHasTheSignalDispositionsOfADirectOne: the helper
// drops the terminal's signals (they are the Engine's), but its calls
// do not inherit that: they ignore what a direct call ignores.
func TestAHelpedCallHasTheSignalDispositionsOfADirectOne(t *testing.T) {
	direct, err := Command(context.Background(), "grep", "^SigIgn", "/proc/self/status").Output()
	if err != nil {
		t.Fatal(err)
	}
	withHelper(t)
	c := Command(context.Background(), "grep", "^SigIgn", "/proc/self/status")
	helped, err := c.Output()
	if err != nil || c.via == nil {
		t.Fatalf("Output() = %q, %v; helped %v", helped, err, c.via != nil)
	}
	if !bytes.Equal(helped, direct) {
		t.Errorf("a helped call has %q, a direct one %q", helped, direct)
	}
}

// TestAHelpedCallWithACancelledContextIsNotStarted: as exec does, a
// context done before Start starts nothing.
func TestAHelpedCallWithACancelledContextIsNotStarted(t *testing.T) {
	withHelper(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	c := Command(ctx, "true")
	if err := c.Start(); !errors.Is(err, context.Canceled) || c.Result().Executed != NotStarted {
		t.Fatalf("Start() = %v, outcome %v; want context.Canceled, NotStarted", err, c.Result().Executed)
	}
}

func TestAHelpedCallCancelledEndsItsWholeTreeWithTheSetsidGrandchild(t *testing.T) {
	withHelper(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c := Command(ctx, "sh", "-c", `sleep 300 & echo $!; setsid sleep 300 & echo $!; wait`)
	ws := startWithPIDs(t, c, 2)
	testproc.Eventually(t, "the grandchild's setsid", func() bool {
		pg, err := sys.Getpgid(ws[1].pid)
		return err == nil && pg == ws[1].pid
	})
	cancel()
	err := c.Wait()
	var ee *ExitError
	if !errors.As(err, &ee) || ee.Status.Signal() != syscall.SIGKILL {
		t.Fatalf("Wait() = %v, want the leader killed by SIGKILL", err)
	}
	for _, w := range ws {
		if !w.gone() {
			t.Errorf("pid %d of the call is alive after Wait", w.pid)
		}
	}
	if r := c.Result(); r.Tree != Killed || !slices.Equal(r.Escaped, []int{ws[1].pid}) {
		t.Errorf("Result() = %+v, want Killed with the escapee %d", r, ws[1].pid)
	}
}

func TestAHelpedCallReleasesWhatItLeftAndEndReleasedEndsIt(t *testing.T) {
	withHelper(t)
	c := Command(context.Background(), "sh", "-c", `sleep 300 >/dev/null & echo $!; read _; exit 0`)
	in, err := c.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	ws := startWithPIDs(t, c, 1)
	in.Close()
	if err := c.Wait(); err != nil {
		t.Fatalf("Wait() = %v", err)
	}
	if r := c.Result(); r.Tree != Released || !slices.Equal(r.Left, []int{ws[0].pid}) {
		t.Fatalf("Result() = %+v, want Released leaving %d", r, ws[0].pid)
	}
	if ws[0].gone() {
		t.Fatal("the released process is gone before EndReleased")
	}
	if err := c.EndReleased(); err != nil {
		t.Fatalf("EndReleased() = %v", err)
	}
	if !ws[0].goneWithin(testproc.TooLong) {
		t.Error("EndReleased returned and the released process lives")
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestAHelpedCallCarriesAnIDOfItsOwnAlone: outside a session, a call
// through the helper has the mark, holding its own id alone.
func TestAHelpedCallCarriesAnIDOfItsOwnAlone(t *testing.T) {
	withHelper(t)
	c := Command(context.Background(), "sh", "-c", `printf %s "$`+mark.Var+`"`)
	out, err := c.Output()
	if _, perr := mark.Parse(string(out)); err != nil || c.via == nil || perr != nil {
		t.Fatalf("the helped call's mark = %q, %v (helped %v); want one id", out, err, c.via != nil)
	}
}

// TestAHelpedCallsEndOnExitEndsItsOrphan: the orphan is adopted by the
// helper, which tells by the call's own mark that it is this call's.
func TestAHelpedCallsEndOnExitEndsItsOrphan(t *testing.T) {
	withHelper(t)
	c := Command(context.Background(), "sh", "-c", orphanScript)
	c.EndOnExit = true
	ws := startWithPIDs(t, c, 1)
	if err := c.Wait(); err != nil {
		t.Fatalf("Wait() = %v", err)
	}
	r := c.Result()
	if r.Tree != Killed || len(r.Survivors) != 0 || !slices.Equal(r.Escaped, []int{ws[0].pid}) {
		t.Fatalf("Result() = %+v, want Killed, the orphan %d escaped, no survivors", r, ws[0].pid)
	}
	if !ws[0].gone() {
		t.Error("Wait returned Killed and the orphan lives")
	}
}

// TestAKillEndsWhatTheCallOrphansDuringTheEnd: a leader that, on the
// stop signal, starts a setsid process and exits orphans it during the
// end, after every look at the call's tree at its start; the end's last
// looks find it by the call's mark, and end it before Wait returns.
func TestAKillEndsWhatTheCallOrphansDuringTheEnd(t *testing.T) {
	withHelper(t)
	pidFile := filepath.Join(t.TempDir(), "pid")
	c := Command(context.Background(), "sh", "-c",
		`trap 'setsid sleep 330 >/dev/null & echo $! >"$1"; exit 0' TERM; echo $$; sleep 300 & wait`, "-", pidFile)
	// The trap runs at once (wait returns on it); the orphan, found
	// during the grace, gets SIGKILL at its end: the grace is the test's
	// length.
	c.Grace = 10 * time.Second
	startWithPIDs(t, c, 1)
	if err := c.Kill(); err != nil {
		t.Fatalf("Kill() = %v", err)
	}
	_ = c.Wait()
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatalf("the trap did not run: %v", err)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	if r := c.Result(); r.Tree != Killed || len(r.Survivors) != 0 || alive(pid) {
		t.Fatalf("Result() = %+v and the orphan %d alive %v; want Killed, no survivors, the orphan gone", r, pid, alive(pid))
	}
}

// TestAHelpedCallsOrphanIsLeftAndEndReleasedEndsIt: released, the orphan
// is in Left, and EndReleased ends it.
func TestAHelpedCallsOrphanIsLeftAndEndReleasedEndsIt(t *testing.T) {
	withHelper(t)
	c := Command(context.Background(), "sh", "-c", orphanScript)
	ws := startWithPIDs(t, c, 1)
	if err := c.Wait(); err != nil {
		t.Fatalf("Wait() = %v", err)
	}
	if r := c.Result(); r.Tree != Released || !slices.Equal(r.Left, []int{ws[0].pid}) {
		t.Fatalf("Result() = %+v, want Released leaving the orphan %d", r, ws[0].pid)
	}
	if err := c.EndReleased(); err != nil {
		t.Fatalf("EndReleased() = %v", err)
	}
	if !ws[0].gone() {
		t.Error("EndReleased returned and the orphan lives")
	}
}

func TestWhatAReleasedCallLeftEndsWithTheHelper(t *testing.T) {
	withHelper(t)
	c := Command(context.Background(), "sh", "-c", `setsid sleep 300 >/dev/null & echo $!; read _; exit 0`)
	in, err := c.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	ws := startWithPIDs(t, c, 1)
	in.Close()
	if err := c.Wait(); err != nil {
		t.Fatalf("Wait() = %v", err)
	}
	dropHelper()
	if !ws[0].goneWithin(testproc.TooLong) {
		t.Error("what the released call left outlived its helper's connection")
	}
}

func TestASpawnTheHelperCouldNotExecuteIsNotStartedAndNotRetried(t *testing.T) {
	withHelper(t)
	before := helpersStarted.Load()
	dir := t.TempDir()
	c := Command(context.Background(), filepath.Join(dir, "missing"))
	err := c.Start()
	if err == nil || c.Result().Executed != NotStarted || c.Result().Notice != "" {
		t.Fatalf("Start() = %v, Result() = %+v; want the helper's failure, NotStarted, no notice", err, c.Result())
	}
	if errors.Is(err, ErrUnclear) {
		t.Fatalf("Start() = %v: a spawn the helper answered as failed is not unclear", err)
	}
	liveHelperPID(t) // the helper that answered is kept
	if got := helpersStarted.Load() - before; got != 1 {
		t.Errorf("%d helpers started for the call, want 1: a failed spawn is not tried on another", got)
	}
}

// TestAFailedStartThroughTheHelperIsThePathErrorOfADirectOne: a program
// or a directory that is not there fails Start with the *fs.PathError,
// errno included, that a direct Start (os/exec) returns.
func TestAFailedStartThroughTheHelperIsThePathErrorOfADirectOne(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct{ what, path, dir string }{
		{"a missing program", filepath.Join(dir, "missing"), ""},
		{"a missing directory", "/bin/true", filepath.Join(dir, "gone")},
	} {
		t.Run(tc.what, func(t *testing.T) {
			start := func() (*Cmd, error) {
				c := Command(context.Background(), tc.path)
				c.Dir = tc.dir
				return c, c.Start()
			}
			_, direct := start()
			withHelper(t)
			c, helped := start()
			if c.Result().Notice != "" || c.Result().Executed != NotStarted {
				t.Fatalf("Result() = %+v: want the helper's answer, NotStarted", c.Result())
			}
			var pe *fs.PathError
			if !errors.As(helped, &pe) || !errors.Is(helped, fs.ErrNotExist) || !errors.Is(helped, syscall.ENOENT) {
				t.Errorf("Start() through the helper = %v (%T): want an *fs.PathError of ENOENT", helped, helped)
			}
			if direct == nil || helped == nil || helped.Error() != direct.Error() {
				t.Errorf("Start() through the helper = %v, directly %v: want the same error", helped, direct)
			}
		})
	}
}

// TestStdoutAndStderrPipesReachEndOfFileBeforeWait: read to end of file
// before Wait, the order os/exec documents, directly and through the
// helper: the call's ends of the pipes are not held open here.
func TestStdoutAndStderrPipesReachEndOfFileBeforeWait(t *testing.T) {
	for _, helped := range []bool{false, true} {
		t.Run(map[bool]string{false: "direct", true: "helped"}[helped], func(t *testing.T) {
			if helped {
				withHelper(t)
			}
			c := Command(context.Background(), "sh", "-c", "echo out; echo err >&2")
			out, err := c.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			errp, err := c.StderrPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := c.Start(); err != nil {
				t.Fatal(err)
			}
			if (c.via != nil) != helped {
				t.Fatalf("helped %v, want %v", c.via != nil, helped)
			}
			read := make(chan string, 2)
			for _, r := range []io.Reader{out, errp} {
				go func() {
					b, _ := io.ReadAll(r)
					read <- string(b)
				}()
			}
			var got []string
			for range 2 {
				select {
				case s := <-read:
					got = append(got, s)
				case <-time.After(testproc.TooLong):
					t.Fatal("a pipe did not reach end of file before Wait")
				}
			}
			slices.Sort(got)
			if err := c.Wait(); err != nil || !slices.Equal(got, []string{"err\n", "out\n"}) {
				t.Errorf("read %q, Wait() = %v; want out and err, nil", got, err)
			}
		})
	}
}

// TestAWrappedCmdWithPipesOfItsOwnRunsDirectly: pipes made on the
// exec.Cmd before Wrap are closed for the call only by its own Start, so
// such a call runs directly, and its pipe still reaches end of file
// before Wait.
func TestAWrappedCmdWithPipesOfItsOwnRunsDirectly(t *testing.T) {
	withHelper(t)
	inner := exec.Command("echo", "out")
	out, err := inner.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	c := Wrap(inner)
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	if c.via != nil {
		t.Error("the call went through the helper: want a direct call")
	}
	read := make(chan string, 1)
	go func() {
		b, _ := io.ReadAll(out)
		read <- string(b)
	}()
	select {
	case s := <-read:
		if s != "out\n" {
			t.Errorf("read %q", s)
		}
	case <-time.After(testproc.TooLong):
		t.Fatal("the pipe did not reach end of file before Wait")
	}
	if err := c.Wait(); err != nil || c.Result().Notice != NoticeDirect {
		t.Errorf("Wait() = %v, notice %q: want nil and the direct call's notice", err, c.Result().Notice)
	}
}

// The tests of the helper's failures run an Engine (this binary, as the
// role "helper-engine") outside any session: it makes one call and
// writes what it saw.

type helperReport struct {
	Executed  Executed
	Tree      TreeState
	Notice    string
	StartErr  string
	WaitErr   string
	Unclear   bool
	Helped    bool
	Pids      []int // the leader, then the PIDs the call printed
	HelperPID int
	Helpers   int64 // how many helpers this Engine started
	HelperExe string
}

func init() {
	testproc.Register("helper-engine", helperEngine)
}

// helperEngine: args are the report path, the fault (faultVar's value, or
// "-"), the script, how many PIDs it prints, and the ending: "wait"
// (stdin closed, Wait), "hold" (report, then wait to be killed), "gone"
// (the helper is killed, its end seen, then the call is made),
// "send-fails" (the first spawn's send fails before a byte leaves),
// "undispatched" (as wait, in a binary whose main did not call
// IfRequested), "linger" (report, whatever Start said, then wait to be
// killed: the Engine's children can be looked at).
func helperEngine(args []string) int {
	report, fault, script, end := args[0], args[1], args[2], args[4]
	n, _ := strconv.Atoi(args[3])
	_ = os.Unsetenv(testproc.HelperVar) // the helper is not a test role
	_ = os.Unsetenv(mark.Var)
	if fault != "-" {
		_ = os.Setenv(faultVar, fault)
	}
	// This binary dispatches the helper mode (TestMain runs RunHidden),
	// as IfRequested records; "undispatched" is a binary that does not.
	dispatched.Store(end != "undispatched")
	helperAnswerBudget = 5 * time.Second
	rep := helperReport{}
	write := func() {
		b, _ := json.Marshal(rep)
		_ = os.WriteFile(report+".tmp", b, 0o644)
		_ = os.Rename(report+".tmp", report)
		if end == "linger" {
			select {}
		}
	}
	switch end {
	case "gone":
		if err := Command(context.Background(), "true").Run(); err != nil {
			rep.StartErr = "first call: " + err.Error()
			write()
			return 0
		}
		l := current
		_ = l.helper.Kill()
		<-l.ended
	case "send-fails":
		failNextSend.Store(true)
	}
	c := Command(context.Background(), "sh", "-c", script)
	out, _ := c.StdoutPipe()
	in, _ := c.StdinPipe()
	err := c.Start()
	res := c.Result()
	rep.Executed, rep.Notice, rep.Helped = res.Executed, res.Notice, c.via != nil
	rep.Helpers = helpersStarted.Load()
	if err != nil {
		rep.StartErr, rep.Unclear = err.Error(), errors.Is(err, ErrUnclear)
		write()
		return 0
	}
	rep.Pids = append(rep.Pids, c.Process.Pid)
	if c.via != nil {
		rep.HelperPID = c.via.l.helper.Pid
		rep.HelperExe, _ = os.Readlink("/proc/" + strconv.Itoa(rep.HelperPID) + "/exe")
	}
	r := bufio.NewReader(out)
	for range n {
		line, _ := r.ReadString('\n')
		pid, _ := strconv.Atoi(strings.TrimSpace(line))
		rep.Pids = append(rep.Pids, pid)
	}
	if end == "hold" {
		write()
		select {}
	}
	in.Close()
	if err := c.Wait(); err != nil {
		rep.WaitErr = err.Error()
	}
	res = c.Result()
	rep.Executed, rep.Tree, rep.Notice = res.Executed, res.Tree, res.Notice
	write()
	return 0
}

// engineRun is a started helper-engine.
type engineRun struct {
	cmd    *exec.Cmd
	out    *bytes.Buffer
	report string
	exited chan struct{}
}

func startHelperEngine(t *testing.T, fault, script string, n int, end string, env ...string) *engineRun {
	t.Helper()
	e := &engineRun{report: filepath.Join(t.TempDir(), "report"), out: &bytes.Buffer{}, exited: make(chan struct{})}
	e.cmd = testproc.HelperCommand(t, "helper-engine", e.report, fault, script, strconv.Itoa(n), end)
	e.cmd.Env = append(e.cmd.Env, env...)
	e.cmd.Stdout, e.cmd.Stderr = e.out, e.out
	if err := e.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { _ = e.cmd.Wait(); close(e.exited) }()
	t.Cleanup(func() { _ = e.cmd.Process.Kill(); <-e.exited })
	return e
}

// result waits for the Engine's report.
func (e *engineRun) result(t *testing.T) helperReport {
	t.Helper()
	var rep helperReport
	testproc.Eventually(t, "the Engine's report", func() bool {
		b, err := os.ReadFile(e.report)
		if err == nil && json.Unmarshal(b, &rep) == nil {
			return true
		}
		select {
		case <-e.exited:
			t.Fatalf("the Engine exited without a report: %s", e.out.String())
		default:
		}
		return false
	})
	return rep
}

func markerCount(t *testing.T, path string) int {
	t.Helper()
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return 0
	}
	if err != nil {
		t.Fatal(err)
	}
	return strings.Count(string(b), "run\n")
}

// TestAFaultAtEveryStepOfTheHandshakeRunsTheCommandAtMostOnce: the helper
// is killed or paused at each step; the call's marker is written at most
// once, exactly once where the outcome is known to be Started, never
// where it is NotStarted, and Unclear is the outcome exactly where the
// request may have reached a helper that then said nothing.
func TestAFaultAtEveryStepOfTheHandshakeRunsTheCommandAtMostOnce(t *testing.T) {
	cases := []struct {
		fault   string
		outcome Executed
		notice  string
		helped  bool
		runs    []int // the marker counts that may be seen
	}{
		// Both helpers fail before their hello: the call runs directly.
		{"hello:kill", Started, NoticeDirect, false, []int{1}},
		{"hello:pause", Started, NoticeDirect, false, []int{1}},
		// Only the first fails: the second helper parents the call.
		{"hello:kill:ONCE", Started, "", true, []int{1}},
		{"hello:pause:ONCE", Started, "", true, []int{1}},
		// The request reached the helper, which said nothing.
		{"request:kill", Unclear, NoticeUnclear, false, []int{0}},
		{"request:pause", Unclear, NoticeUnclear, false, []int{0}},
		// The leader was started; the helper said nothing.
		{"spawned:kill", Unclear, NoticeUnclear, false, []int{0, 1}},
		{"spawned:pause", Unclear, NoticeUnclear, false, []int{0, 1}},
		// "started" arrived; the helper died after it.
		{"started:kill", Started, NoticeLost, true, []int{0, 1}},
	}
	for _, tc := range cases {
		t.Run(strings.ReplaceAll(tc.fault, ":", "-"), func(t *testing.T) {
			dir := t.TempDir()
			marker := filepath.Join(dir, "marker")
			fault := strings.Replace(tc.fault, "ONCE", filepath.Join(dir, "once"), 1)
			e := startHelperEngine(t, fault, `echo run >> '`+marker+`'; read _`, 0, "wait")
			rep := e.result(t)
			<-e.exited
			if rep.Executed != tc.outcome || rep.Notice != tc.notice || rep.Helped != tc.helped {
				t.Errorf("report %+v: want outcome %v, notice %q, helped %v", rep, tc.outcome, tc.notice, tc.helped)
			}
			if (rep.Executed == Unclear) != rep.Unclear {
				t.Errorf("report %+v: Start's error wraps ErrUnclear exactly when the outcome is Unclear", rep)
			}
			if n := markerCount(t, marker); !slices.Contains(tc.runs, n) {
				t.Errorf("the command ran %d times, want one of %v (report %+v)", n, tc.runs, rep)
			}
			if t.Failed() {
				t.Logf("Engine output: %s", e.out.String())
			}
		})
	}
}

// TestAHelperKnownGoneOrAnUnsentRequestGoesToASecondHelperOnce: the two
// proofs that a request reached nobody let it go to one more helper,
// which runs the command once.
func TestAHelperKnownGoneOrAnUnsentRequestGoesToASecondHelperOnce(t *testing.T) {
	for _, end := range []string{"gone", "send-fails"} {
		t.Run(end, func(t *testing.T) {
			marker := filepath.Join(t.TempDir(), "marker")
			e := startHelperEngine(t, "-", `echo run >> '`+marker+`'; read _`, 0, end)
			rep := e.result(t)
			<-e.exited
			if rep.StartErr != "" || rep.Executed != Started || !rep.Helped || rep.Notice != "" || rep.Helpers != 2 {
				t.Errorf("report %+v: want Started by a second helper, no notice", rep)
			}
			if n := markerCount(t, marker); n != 1 {
				t.Errorf("the command ran %d times, want once", n)
			}
		})
	}
}

// TestAnEngineKilledMidCallOutsideASessionLeavesNothingOfTheCall: the
// Engine is SIGKILLed with a call running, a member in its group and a
// setsid grandchild: the helper sees its connection end and ends the
// call's whole tree, then exits.
func TestAnEngineKilledMidCallOutsideASessionLeavesNothingOfTheCall(t *testing.T) {
	e := startHelperEngine(t, "-", `sleep 300 & echo $!; setsid sleep 300 & echo $!; read _`, 2, "hold")
	rep := e.result(t)
	if !rep.Helped || len(rep.Pids) != 3 {
		t.Fatalf("report %+v: want a helped call and three PIDs", rep)
	}
	var ws []watched
	for _, pid := range rep.Pids {
		ws = append(ws, watch(t, pid))
	}
	testproc.Eventually(t, "the grandchild's setsid", func() bool {
		pg, err := sys.Getpgid(ws[2].pid)
		return err == nil && pg == ws[2].pid
	})
	helper := watch(t, rep.HelperPID)
	if parentOf(t, rep.HelperPID) != e.cmd.Process.Pid || parentOf(t, ws[0].pid) != rep.HelperPID {
		t.Fatalf("the leader's parent is not the Engine's helper")
	}
	killed := time.Now()
	if err := e.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	for _, w := range append(ws, helper) {
		if !w.goneWithin(testproc.TooLong) {
			t.Errorf("pid %d outlived the Engine's SIGKILL", w.pid)
		}
	}
	t.Logf("the call's tree and the helper were gone %v after the Engine's SIGKILL", time.Since(killed))
}

// TestAHelperKilledLeavesItsCallsLeaderToItsParentDeathSignal: the
// helper dies of SIGKILL with a call running; the leader, forked from the
// helper's one locked thread with PR_SET_PDEATHSIG, dies with it.
func TestAHelperKilledLeavesItsCallsLeaderToItsParentDeathSignal(t *testing.T) {
	e := startHelperEngine(t, "-", `read _`, 0, "hold")
	rep := e.result(t)
	if !rep.Helped || len(rep.Pids) != 1 {
		t.Fatalf("report %+v: want a helped call", rep)
	}
	leader := watch(t, rep.Pids[0])
	helper := watch(t, rep.HelperPID)
	if parentOf(t, rep.HelperPID) != e.cmd.Process.Pid || parentOf(t, leader.pid) != rep.HelperPID {
		t.Fatalf("the leader's parent is not the Engine's helper")
	}
	if err := sys.PidfdSignal(helper.fd, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if !leader.goneWithin(testproc.TooLong) {
		t.Error("the call's leader outlived its helper")
	}
}

// TestAnEngineWithoutTheDispatchUsesAnInstalledStarterAsItsHelper: a
// binary whose main did not call IfRequested is never run as the helper
// (it would run a second copy of the Engine); an installed
// session-starter of this protocol is, and without one the call runs
// directly with the notice.
func TestAnEngineWithoutTheDispatchUsesAnInstalledStarterAsItsHelper(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Fatal(err)
	}
	for _, installed := range []bool{true, false} {
		t.Run("installed="+strconv.FormatBool(installed), func(t *testing.T) {
			dir := t.TempDir()
			starterPath := filepath.Join(dir, "session-starter")
			if installed {
				b, err := os.ReadFile(self)
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(starterPath, b, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			marker := filepath.Join(dir, "marker")
			e := startHelperEngine(t, "-", `echo run >> '`+marker+`'`, 0, "undispatched", "PATH="+dir+":"+filepath.Dir(sh))
			rep := e.result(t)
			<-e.exited
			switch {
			case installed && (!rep.Helped || rep.HelperExe != starterPath || rep.Notice != ""):
				t.Errorf("report %+v: want the installed %s as the helper", rep, starterPath)
			case !installed && (rep.Helped || rep.Notice != NoticeDirect || rep.Executed != Started):
				t.Errorf("report %+v: want the call run directly with the notice", rep)
			}
			if n := markerCount(t, marker); n != 1 {
				t.Errorf("the command ran %d times, want once", n)
			}
			if !installed && !strings.Contains(e.out.String(), NoticeDirect) {
				t.Errorf("the Engine's stderr %q lacks the notice", e.out.String())
			}
		})
	}
}

// TestAReleaseThatCouldNotBeSentSaysSo: the release does not reach the
// helper, which is then let go; what the call left is ended with it, and
// the result says so.
func TestAReleaseThatCouldNotBeSentSaysSo(t *testing.T) {
	withHelper(t)
	c := Command(context.Background(), "sh", "-c", `sleep 300 >/dev/null & echo $!; read _; exit 0`)
	in, err := c.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	ws := startWithPIDs(t, c, 1)
	failNextSend.Store(true)
	in.Close()
	_ = c.Wait()
	if r := c.Result(); r.Notice != NoticeReleaseUnsent {
		t.Errorf("Result() = %+v, want the notice %q", r, NoticeReleaseUnsent)
	}
	if !ws[0].goneWithin(testproc.TooLong) {
		t.Error("what the call left outlived the helper it was left to")
	}
}

// BenchmarkACallOfTrue: a contained call of /bin/true through the spawn
// helper, directly, and a plain exec.Command, in the same run.
func BenchmarkACallOfTrue(b *testing.B) {
	b.Run("plain", func(b *testing.B) {
		for b.Loop() {
			if err := exec.Command("/bin/true").Run(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("direct", func(b *testing.B) {
		for b.Loop() {
			if err := Command(context.Background(), "/bin/true").Run(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("helper", func(b *testing.B) {
		dispatched.Store(true)
		b.Cleanup(func() {
			dispatched.Store(false)
			dropHelper()
		})
		for b.Loop() {
			c := Command(context.Background(), "/bin/true")
			if err := c.Run(); err != nil || c.via == nil {
				b.Fatalf("Run() = %v, helped %v", err, c.via != nil)
			}
		}
	})
}

// TestCallsAtOnceShareOneHelper: one helper per Engine, whatever the
// number of calls in flight; each gets its own output and status.
func TestCallsAtOnceShareOneHelper(t *testing.T) {
	withHelper(t)
	before := helpersStarted.Load()
	const n = 8
	errs := make(chan error, n)
	for i := range n {
		go func() {
			c := Command(context.Background(), "sh", "-c", "echo "+strconv.Itoa(i)+"; exit "+strconv.Itoa(i))
			out, err := c.Output()
			var ee *ExitError
			switch {
			case c.via == nil:
				errs <- errors.New("not helped")
			case strings.TrimSpace(string(out)) != strconv.Itoa(i):
				errs <- errors.New("call " + strconv.Itoa(i) + " read " + string(out))
			case i == 0 && err != nil, i > 0 && (!errors.As(err, &ee) || ee.ExitCode() != i):
				errs <- fmt.Errorf("call %d: %v", i, err)
			default:
				errs <- nil
			}
		}()
	}
	for range n {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	if got := helpersStarted.Load() - before; got != 1 {
		t.Errorf("%d helpers were started for %d calls, want 1", got, n)
	}
}

// TestOnlyABrokenConnectionLetsTheHelperGo: a send that failed for the
// connection's sake lets the helper (and the calls it holds) go; one that
// failed for this message alone (too large, too many descriptors) does
// not end the other calls.
func TestOnlyABrokenConnectionLetsTheHelperGo(t *testing.T) {
	for err, want := range map[error]bool{
		errUnsent{syscall.EPIPE}:        true,
		errUnsent{syscall.ECONNRESET}:   true,
		errUnsent{errTestSend}:          true,
		errUnsent{syscall.EMSGSIZE}:     false,
		errUnsent{syscall.ETOOMANYREFS}: false,
		errUnsent{syscall.ENOBUFS}:      false,
	} {
		if got := brokenLink(err); got != want {
			t.Errorf("brokenLink(%v) = %v, want %v", err, got, want)
		}
	}
}

// TestASIGTERMedHelperEndsItsCallsAndExits: SIGTERM ends the helper as
// the end of its connection does — its call's whole tree, a setsid
// grandchild included, then the helper itself — not as a SIGKILL, which
// would leave the grandchild.
func TestASIGTERMedHelperEndsItsCallsAndExits(t *testing.T) {
	e := startHelperEngine(t, "-", `setsid sleep 600 & echo $!; read _`, 1, "hold")
	rep := e.result(t)
	if !rep.Helped || len(rep.Pids) != 2 {
		t.Fatalf("report %+v: want a helped call and its grandchild", rep)
	}
	leader, grandchild := watch(t, rep.Pids[0]), watch(t, rep.Pids[1])
	helper := watch(t, rep.HelperPID)
	if err := sys.PidfdSignal(helper.fd, syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	for _, w := range []struct {
		what string
		w    watched
	}{{"the call's leader", leader}, {"its setsid grandchild", grandchild}, {"the helper", helper}} {
		if !w.w.goneWithin(testproc.TooLong) {
			t.Errorf("%s outlived the helper's SIGTERM", w.what)
		}
	}
}

// TestTheHelperDropsTheTerminalsSignals: SIGINT, SIGQUIT and SIGHUP to
// the helper (the terminal's, the Engine's group's) are taken and dropped.
// Once each was taken, a SIGTERM still ends the helper's call with its
// setsid grandchild: a helper that any of them had killed (Go's default
// for SIGQUIT is a traceback and exit 2) would have left the grandchild,
// which no parent-death signal reaches.
func TestTheHelperDropsTheTerminalsSignals(t *testing.T) {
	e := startHelperEngine(t, "-", `setsid sleep 600 & echo $!; read _`, 1, "hold")
	rep := e.result(t)
	if !rep.Helped || len(rep.Pids) != 2 {
		t.Fatalf("report %+v: want a helped call and its grandchild", rep)
	}
	leader, grandchild, helper := watch(t, rep.Pids[0]), watch(t, rep.Pids[1]), watch(t, rep.HelperPID)
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGQUIT, syscall.SIGHUP} {
		if err := sys.PidfdSignal(helper.fd, sig); err != nil {
			t.Fatal(err)
		}
		// Taken: no longer pending for the process or any of its threads.
		testproc.Eventually(t, "the helper to take "+sys.SignalName(sig), func() bool {
			return !pending(t, rep.HelperPID, sig)
		})
	}
	if err := sys.PidfdSignal(helper.fd, syscall.SIGTERM); err != nil {
		t.Fatalf("the helper after SIGINT, SIGQUIT and SIGHUP: %v", err)
	}
	if !grandchild.goneWithin(testproc.TooLong) {
		t.Fatal("the setsid grandchild outlived the helper: SIGINT, SIGQUIT or SIGHUP ended the helper")
	}
	if !leader.goneWithin(testproc.TooLong) || !helper.goneWithin(testproc.TooLong) {
		t.Fatal("the call's leader or the helper outlived the SIGTERM")
	}
}

// pending reports whether sig is pending for pid as a process or for any
// of its threads (SigPnd, ShdPnd of /proc/PID/task/*/status).
func pending(t *testing.T, pid int, sig syscall.Signal) bool {
	t.Helper()
	tasks, err := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, task := range tasks {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/status", pid, task.Name()))
		if err != nil {
			continue // the thread ended
		}
		for _, line := range strings.Split(string(b), "\n") {
			k, v, ok := strings.Cut(line, ":")
			if !ok || (k != "SigPnd" && k != "ShdPnd") {
				continue
			}
			mask, err := strconv.ParseUint(strings.TrimSpace(v), 16, 64)
			if err != nil {
				t.Fatalf("%s of %d: %q", k, pid, v)
			}
			if mask&(1<<(uint(sig)-1)) != 0 {
				return true
			}
		}
	}
	return false
}

// TestAHelpedCallWithEndOnExitEndsWhatTheLeaderLeft: the choice at the
// leader's exit goes to the helper as a kill: what it left is ended, and
// nothing is released.
func TestAHelpedCallWithEndOnExitEndsWhatTheLeaderLeft(t *testing.T) {
	withHelper(t)
	endOnExitEndsWhatTheLeaderLeft(t, true)
}

// TestAHelperThatDoesNotAnswerIsKilled: a helper paused before its hello,
// after it read a request, or after it started the leader gets no more
// time than the answer's budget: the Engine SIGKILLs it (and reaps it),
// so that no stopped helper of the Engine's is left. Without the kill
// the paused helper would stay a stopped child of the Engine for good.
func TestAHelperThatDoesNotAnswerIsKilled(t *testing.T) {
	for _, fault := range []string{"hello:pause", "request:pause", "spawned:pause"} {
		t.Run(strings.ReplaceAll(fault, ":", "-"), func(t *testing.T) {
			e := startHelperEngine(t, fault, `read _`, 0, "linger")
			rep := e.result(t)
			if rep.Helpers == 0 {
				t.Fatalf("report %+v: no helper was started", rep)
			}
			engine := e.cmd.Process.Pid
			testproc.Eventually(t, "no stopped helper left to the Engine", func() bool {
				kids, err := proc.Children(engine)
				if err != nil {
					t.Fatal(err)
				}
				for _, pid := range kids {
					if st, err := proc.ReadStat(pid); err == nil && st.State == 'T' {
						return false
					}
				}
				return true
			})
		})
	}
}

// TestAStoppedHelperHangsNoCall: with the helper SIGSTOPped, eight calls
// at once, each with a 60 kB environment, fill its socket's buffer. Each
// call's send and answer are bounded from its hand-over: a call whose
// request was queued is Unclear and did not run; one whose send ran out
// of time queued nothing and runs (directly, with its notice, or through
// a second helper, once the first is gone); the stopped helper is
// SIGKILLed, and reaped. Without the bound the sends hold every call.
func TestAStoppedHelperHangsNoCall(t *testing.T) {
	withHelper(t)
	budget := helperAnswerBudget
	helperAnswerBudget = 2 * time.Second
	t.Cleanup(func() { helperAnswerBudget = budget })
	if c := Command(context.Background(), "true"); c.Run() != nil || c.via == nil {
		t.Fatal("the first call did not go through a helper")
	}
	linkMu.Lock()
	l := current
	linkMu.Unlock()
	t.Cleanup(func() { _ = l.helper.Kill() })
	if err := l.helper.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	testproc.Eventually(t, "the helper to stop", func() bool {
		st, err := proc.ReadStat(l.helper.Pid)
		return err == nil && st.State == 'T'
	})
	big := "BIG=" + strings.Repeat("x", 60<<10)
	dir := t.TempDir()
	const n = 8
	type outcome struct {
		i      int
		err    error
		r      Result
		helped bool
	}
	done := make(chan outcome, n)
	for i := range n {
		go func() {
			c := Command(context.Background(), "sh", "-c", "echo run >> "+filepath.Join(dir, strconv.Itoa(i)))
			c.Env = append(os.Environ(), big)
			err := c.Run()
			done <- outcome{i, err, c.Result(), c.via != nil}
		}()
	}
	timeout := time.After(testproc.TooLong)
	for range n {
		select {
		case o := <-done:
			runs := markerCount(t, filepath.Join(dir, strconv.Itoa(o.i)))
			switch {
			case o.r.Executed == Unclear && errors.Is(o.err, ErrUnclear) && runs == 0:
			case o.r.Executed == Started && o.err == nil && runs == 1 && (o.helped || o.r.Notice == NoticeDirect):
			default:
				t.Errorf("call %d: %v, %+v, helped %v, ran %d times: want Unclear and not run, or Started once", o.i, o.err, o.r, o.helped, runs)
			}
		case <-timeout:
			t.Fatal("calls to a stopped helper did not return")
		}
	}
	select {
	case <-l.ended:
	case <-time.After(testproc.TooLong):
		t.Fatal("the stopped helper was not killed and reaped")
	}
}

// TestARequestTheHelperDoesNotTakeInTimeRunsDirectly: a helper whose
// socket buffer is full and who reads nothing (a process standing in for
// a stuck helper) gets the answer's budget from the hand-over, no more:
// the send queued nothing, so the call runs directly with its notice,
// and the helper is SIGKILLed.
func TestARequestTheHelperDoesNotTakeInTimeRunsDirectly(t *testing.T) {
	withHelper(t)
	budget := helperAnswerBudget
	helperAnswerBudget = time.Second
	t.Cleanup(func() { helperAnswerBudget = budget })
	pair, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_SEQPACKET|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	ours, theirs := pair[0], pair[1]
	t.Cleanup(func() { _ = syscall.Close(theirs) })
	fill := encode(msgKill, answer{Err: strings.Repeat("x", 16<<10)})
	for sendPacket(ours, fill, nil, time.Now()) == nil {
	}
	stuck := exec.Command("sleep", "300")
	if err := stuck.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = stuck.Process.Kill() })
	l := &link{sock: os.NewFile(uintptr(ours), "spawn-helper"), helper: stuck.Process, calls: map[uint64]chan reply{}, hello: make(chan struct{}), ended: make(chan struct{})}
	go l.read()
	linkMu.Lock()
	current = l
	linkMu.Unlock()
	marker := filepath.Join(t.TempDir(), "marker")
	c := Command(context.Background(), "sh", "-c", "echo run >> "+marker)
	ran := make(chan error, 1)
	go func() { ran <- c.Run() }()
	select {
	case err := <-ran:
		if r := c.Result(); err != nil || r.Executed != Started || r.Notice != NoticeDirect || c.via != nil {
			t.Errorf("Run() = %v, Result() = %+v, helped %v: want a direct call with its notice", err, r, c.via != nil)
		}
	case <-time.After(testproc.TooLong):
		t.Fatal("a call to a helper that reads nothing did not return")
	}
	if n := markerCount(t, marker); n != 1 {
		t.Errorf("the call ran %d times, want once", n)
	}
	// The reader reaps the helper: "sleep 300" ends only when killed.
	select {
	case <-l.ended:
	case <-time.After(testproc.TooLong):
		t.Fatal("the helper that read nothing was not killed")
	}
}

// inheritablePipe is a pipe whose write end this process holds without
// close-on-exec, numbered 100 or above (clear of a call's 0-3).
func inheritablePipe(t *testing.T) (r *os.File, w int) {
	t.Helper()
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pw.Close()
	w, err = unix.FcntlInt(pw.Fd(), unix.F_DUPFD, 100)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = pr.Close(); _ = syscall.Close(w) })
	return pr, w
}

// TestAPipeTheEngineClosesReachesEndOfFileWithAHelper: the helper keeps
// only its socket, not what the Engine left inheritable when it started
// the helper, so a pipe the Engine closes reaches end of file.
func TestAPipeTheEngineClosesReachesEndOfFileWithAHelper(t *testing.T) {
	withHelper(t)
	r, w := inheritablePipe(t)
	if c := Command(context.Background(), "true"); c.Run() != nil || c.via == nil {
		t.Fatal("the call did not go through a helper")
	}
	_ = syscall.Close(w)
	eof := make(chan struct{})
	go func() {
		_, _ = io.ReadAll(r)
		close(eof)
	}()
	select {
	case <-eof:
	case <-time.After(testproc.TooLong):
		t.Fatalf("the pipe did not reach end of file: the helper %d holds it", liveHelperPID(t))
	}
}

// TestACallReceivesItsStdioAndExtraFilesOnly: the one descriptor rule,
// directly (under a session) and through the helper: a descriptor this
// process left inheritable does not reach the call; its ExtraFiles do.
func TestACallReceivesItsStdioAndExtraFilesOnly(t *testing.T) {
	for _, helped := range []bool{false, true} {
		t.Run(map[bool]string{false: "direct", true: "helped"}[helped], func(t *testing.T) {
			if helped {
				withHelper(t)
			} else {
				id, _ := mark.New()
				t.Setenv(mark.Var, id.String())
			}
			_, w := inheritablePipe(t)
			extra, err := os.Open(os.DevNull)
			if err != nil {
				t.Fatal(err)
			}
			defer extra.Close()
			c := Command(context.Background(), "sh", "-c",
				fmt.Sprintf(`[ -e /proc/$$/fd/%d ] && echo held || echo closed; [ -e /proc/$$/fd/3 ] && echo extra`, w))
			c.ExtraFiles = []*os.File{extra}
			out, err := c.Output()
			if err != nil || (c.via != nil) != helped {
				t.Fatalf("Output() = %q, %v; helped %v", out, err, c.via != nil)
			}
			if string(out) != "closed\nextra\n" {
				t.Errorf("the call says %q: want the inheritable descriptor %d closed and its extra file at 3", out, w)
			}
			// The rule is the call's: this process's descriptor stays
			// inheritable, for its plain children.
			if cloexec, err := sys.CloseOnExec(w); err != nil || cloexec {
				t.Errorf("after the call the descriptor %d is close-on-exec %v, %v; want it inheritable as before", w, cloexec, err)
			}
		})
	}
}

// TestAKillOfACallWhoseHelperStoppedReturns: a helper stopped while its
// call runs does not hold a Kill: the end's report is due within the
// grace, the kill budget and the answer's budget; then the helper is
// SIGKILLed (its leader gets the parent-death signal) and the call is
// lost, with its notice.
func TestAKillOfACallWhoseHelperStoppedReturns(t *testing.T) {
	withHelper(t)
	budget := helperAnswerBudget
	helperAnswerBudget = time.Second
	t.Cleanup(func() { helperAnswerBudget = budget })
	c := Command(context.Background(), "sleep", "300")
	c.KillBudget = time.Second
	if err := c.Start(); err != nil || c.via == nil {
		t.Fatalf("Start() = %v, helped %v", err, c.via != nil)
	}
	leader := watch(t, c.Process.Pid)
	l := c.via.l
	t.Cleanup(func() { _ = l.helper.Kill() })
	if err := l.helper.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	testproc.Eventually(t, "the helper to stop", func() bool {
		st, err := proc.ReadStat(l.helper.Pid)
		return err == nil && st.State == 'T'
	})
	killed := make(chan error, 1)
	go func() { killed <- c.Kill() }()
	select {
	case <-killed:
	case <-time.After(testproc.TooLong):
		t.Fatal("Kill of a call whose helper stopped did not return")
	}
	if err := c.Wait(); err == nil || c.Result().Notice != NoticeLost {
		t.Errorf("Wait() = %v, notice %q: want the call lost, with its notice", err, c.Result().Notice)
	}
	if !leader.goneWithin(testproc.TooLong) {
		t.Error("the call's leader outlived its killed helper")
	}
}

// TestEndReleasedWithAStoppedHelperReturns: EndReleased waits for the
// helper's answer within the call's grace and kill budget and the
// answer's budget, no more; then the helper is SIGKILLed.
func TestEndReleasedWithAStoppedHelperReturns(t *testing.T) {
	withHelper(t)
	budget := helperAnswerBudget
	helperAnswerBudget = time.Second
	t.Cleanup(func() { helperAnswerBudget = budget })
	c := Command(context.Background(), "sh", "-c", `sleep 300 >/dev/null & echo $!; read _; exit 0`)
	c.KillBudget = time.Second
	in, err := c.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	ws := startWithPIDs(t, c, 1)
	t.Cleanup(func() { _ = sys.PidfdSignal(ws[0].fd, syscall.SIGKILL) })
	in.Close()
	if err := c.Wait(); err != nil || c.Result().Tree != Released {
		t.Fatalf("Wait() = %v, Result() = %+v: want Released", err, c.Result())
	}
	l := c.via.l
	t.Cleanup(func() { _ = l.helper.Kill() })
	if err := l.helper.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	ended := make(chan error, 1)
	go func() { ended <- c.EndReleased() }()
	select {
	case err := <-ended:
		if err == nil {
			t.Error("EndReleased() = nil with the helper stopped: want an error")
		}
	case <-time.After(testproc.TooLong):
		t.Fatal("EndReleased with a stopped helper did not return")
	}
	select {
	case <-l.ended:
	case <-time.After(testproc.TooLong):
		t.Fatal("the stopped helper was not killed")
	}
}
