package contain

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/session-starter/session-starter/internal/sys"
	"github.com/session-starter/session-starter/internal/testproc"
	"github.com/session-starter/session-starter/starter/launch"
)

func init() {
	testproc.Register("win-call", winCall)
	testproc.Register("win-sleep", func([]string) int { time.Sleep(300 * time.Second); return 0 })
}

// winCall starts a grandchild (this binary as win-sleep), prints its
// PID, then waits for stdin to close and exits.
func winCall([]string) int {
	exe, _ := os.Executable()
	child := exec.Command(exe)
	child.Env = append(os.Environ(), testproc.HelperVar+"=win-sleep")
	if err := child.Start(); err != nil {
		return 1
	}
	os.Stdout.WriteString(strconv.Itoa(child.Process.Pid) + "\n")
	_, _ = bufio.NewReader(os.Stdin).ReadString('\n')
	return 0
}

// held is a process the test holds by a handle, so its ID stays its own.
type held struct {
	pid int
	h   sys.Handle
}

func hold(t *testing.T, pid int) held {
	t.Helper()
	h, err := sys.OpenProcess(sys.SYNCHRONIZE|sys.PROCESS_TERMINATE, pid)
	if err != nil {
		t.Fatalf("OpenProcess(%d): %v", pid, err)
	}
	t.Cleanup(func() {
		_ = sys.TerminateProcess(h, 1)
		_ = sys.CloseHandle(h)
	})
	return held{pid: pid, h: h}
}

func (p held) goneWithin(d time.Duration) bool {
	ev, err := sys.WaitForSingleObject(p.h, uint32(d/time.Millisecond))
	return err == nil && ev == sys.WAIT_OBJECT_0
}

func startWinCall(t *testing.T, ctx context.Context) (*Cmd, held, func()) {
	t.Helper()
	_ = testproc.HelperEnv(t, "win-sleep")
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	inner := exec.CommandContext(ctx, exe)
	inner.Env = append(os.Environ(), testproc.HelperEnv(t, "win-call"))
	c := Wrap(inner)
	out, err := c.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	in, err := c.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	pid, perr := strconv.Atoi(strings.TrimSpace(line))
	if err != nil || perr != nil {
		_ = c.Kill()
		_ = c.Wait()
		t.Fatalf("grandchild pid: %q, %v", line, err)
	}
	return c, hold(t, pid), func() { in.Close() }
}

func TestCancelOnWindowsEndsTheCallsChildAndGrandchild(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c, grandchild, _ := startWinCall(t, ctx)
	cancel()
	_ = c.Wait()
	if !grandchild.goneWithin(testproc.TooLong) {
		t.Fatal("the grandchild outlived the cancel")
	}
	if r := c.Result(); r.Tree != Killed {
		t.Fatalf("Result() = %+v, want Killed", r)
	}
}

func TestReleaseOnWindowsLeavesTheGrandchildRunning(t *testing.T) {
	c, grandchild, exit := startWinCall(t, context.Background())
	exit()
	if err := c.Wait(); err != nil {
		t.Fatalf("Wait() = %v", err)
	}
	r := c.Result()
	if r.Tree != Released || !slices.Contains(r.Left, grandchild.pid) {
		t.Fatalf("Result() = %+v, want Released leaving %d", r, grandchild.pid)
	}
	if grandchild.goneWithin(0) {
		t.Fatal("a released process was ended")
	}
	if err := c.EndReleased(); err != nil {
		t.Fatalf("EndReleased() = %v", err)
	}
	if !grandchild.goneWithin(testproc.TooLong) {
		t.Fatal("EndReleased returned and the released process lives")
	}
}

// TestACallsLimitsUnderWineAreRefusedNamingWine: Wine enforces no job
// limit, so a call's is refused before anything runs, never set for
// show.
func TestACallsLimitsUnderWineAreRefusedNamingWine(t *testing.T) {
	if !sys.UnderWine() {
		t.Skip("not under Wine: TestACallsProcessLimitOnWindowsRefusesTheProcessBeyondIt shows the limit")
	}
	c := Command(context.Background(), os.Args[0])
	c.Env = append(os.Environ(), testproc.HelperVar+"=win-call")
	c.Limits = launch.Limits{MaxTasks: 2}
	err := c.Start()
	if err == nil || !strings.Contains(err.Error(), "Wine") || c.Result().Executed != NotStarted {
		if err == nil {
			_ = c.Kill()
			_ = c.Wait()
		}
		t.Fatalf("Start = %v, outcome %v; want the limits refused naming Wine, NotStarted", err, c.Result().Executed)
	}
}

// TestACallsProcessLimitOnWindowsRefusesTheProcessBeyondIt: a call whose
// job allows one process cannot start a child (win-call exits 1 when its
// child cannot be created), and its usage comes from its job. Checked by
// its effect, on real Windows only: Wine enforces no job limit.
func TestACallsProcessLimitOnWindowsRefusesTheProcessBeyondIt(t *testing.T) {
	if sys.UnderWine() {
		t.Skip("Wine enforces no job limit and accounts no job time: the workflow's Windows job runs this")
	}
	c := Command(context.Background(), os.Args[0])
	c.Env = append(os.Environ(), testproc.HelperVar+"=win-call")
	c.Limits = launch.Limits{MaxTasks: 1}
	err := c.Run()
	if code := c.ProcessState.ExitCode(); err == nil || code != 1 {
		t.Fatalf("Run = %v (exit %d), want exit 1: the child beyond the job's one process refused", err, code)
	}
	if u := c.Result().Usage; u.CPUMS == nil || u.CPUSource != "job" || u.MemoryPeakBytes == nil {
		t.Errorf("usage %+v, want the job's CPU time and peak memory", u)
	}
}
