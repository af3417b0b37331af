package starter

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/session-starter/session-starter/internal/proc"
	"github.com/session-starter/session-starter/internal/testproc"
	"github.com/session-starter/session-starter/internal/wire"
	"github.com/session-starter/session-starter/starter/launch"
)

// The test binary plays the gate and the guard of in-process sessions.
func TestMain(m *testing.M) {
	RunHidden(os.Args)
	runAsStarter()
	// Hidden modes first: they never return (nor does the starter a
	// test runs as a process of its own). Then the tests, which must
	// leave no goroutine behind.
	os.Exit(testproc.CheckGoroutinesEnded(m.Run()))
}

func options(argv ...string) Options {
	return Options{
		Argv: argv,
		Env:  append(os.Environ(), "GORACE=atexit_sleep_ms=0"),
	}
}

func TestRunReturnsTheEnginesStatusOnceTheGroupIsEmpty(t *testing.T) {
	t.Setenv("GORACE", "atexit_sleep_ms=0")
	res, err := Run(context.Background(), options("sh", "-c", "sleep 600 & exit 42"))
	if err != nil {
		t.Fatal(err)
	}
	if res.Reason != ReasonEngineExit || !res.Executed || !res.Engine.Exited || res.Engine.Code != 42 {
		t.Fatalf("Run = %+v, want the Engine's exit 42", res)
	}
	if res.End.Outcome != launch.Empty {
		t.Fatalf("group end = %v, want empty", res.End.Outcome)
	}
	// Orphaned members killed with the group may wait as zombies for
	// init to reap them; none may be live.
	if live, err := proc.LiveMembers(res.PID); err != nil || len(live) != 0 {
		t.Fatalf("live members of group %d after Run: %v, %v; want none", res.PID, live, err)
	}
}

func TestCancelingTheContextEndsTheSession(t *testing.T) {
	t.Setenv("GORACE", "atexit_sleep_ms=0")
	ctx, cancel := context.WithCancel(context.Background())
	o := options("sh", "-c", "sleep 600 & exec sleep 600")
	o.Released = cancel
	res, err := Run(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	if res.Reason != ReasonCanceled || res.Engine.Signal != syscall.SIGKILL || res.End.Outcome != launch.Empty {
		t.Fatalf("Run = %+v, want a canceled session whose Engine was SIGKILLed", res)
	}
}

// TestRunRestoresTheLaunchersDescriptorFlags: Run marks inherited
// descriptors close-on-exec while it runs, and puts them back.
func TestRunRestoresTheLaunchersDescriptorFlags(t *testing.T) {
	t.Setenv("GORACE", "atexit_sleep_ms=0")
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	if _, err := unix.FcntlInt(r.Fd(), unix.F_SETFD, 0); err != nil {
		t.Fatal(err)
	}
	if _, err := Run(context.Background(), options("true")); err != nil {
		t.Fatal(err)
	}
	flags, err := unix.FcntlInt(r.Fd(), unix.F_GETFD, 0)
	if err != nil || flags&unix.FD_CLOEXEC != 0 {
		t.Fatalf("fd flags after Run = %#x, %v; want close-on-exec clear again", flags, err)
	}
}

func TestStopBeforeTheGoAheadExecutesNothing(t *testing.T) {
	t.Setenv("GORACE", "atexit_sleep_ms=0")
	ctx, cancel := context.WithCancel(context.Background())
	o := options("sh", "-c", "exit 3")
	o.Ack = func(int, string) error { cancel(); return nil }
	start := time.Now()
	res, err := Run(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	if res.Executed || res.Reason != ReasonCanceled {
		t.Fatalf("Run = %+v after %v, want nothing executed", res, time.Since(start))
	}
	if v := res.Verdict(nil); v.Code != wire.ExitContainment {
		t.Fatalf("Verdict = %+v, want exit 125", v)
	}
}

// TestRunLeavesTheCallersOtherChildrenAlone: without Options.Subreaper,
// Run reaps only its own gate and guard, so a caller's exec.Cmd still
// gets its child's status.
func TestRunLeavesTheCallersOtherChildrenAlone(t *testing.T) {
	t.Setenv("GORACE", "atexit_sleep_ms=0")
	other := exec.Command("sh", "-c", "exit 9")
	if err := other.Start(); err != nil {
		t.Fatal(err)
	}
	if _, err := Run(context.Background(), options("sh", "-c", "sleep 600 & exit 0")); err != nil {
		t.Fatal(err)
	}
	err := other.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 9 {
		t.Fatalf("the caller's child: Wait() = %v, want its exit status 9", err)
	}
}
