package starter

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"testing"
	"time"

	"golang.org/x/sys/windows"

	"github.com/session-starter/session-starter/starter/launch"
)

// TestAParentCreatedAfterUsIsAReusedPID: a process that holds the
// recorded parent ID but was created after this one cannot be the parent.
func TestAParentCreatedAfterUsIsAReusedPID(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// os/exec holds a handle to it until Wait, so its process object and
	// ID stay whether or not it has exited by the check.
	later := exec.Command(exe, "-test.run=^$")
	if err := later.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = later.Wait() }()
	if h, err := openParent(later.Process.Pid); !errors.Is(err, errParentGone) {
		_ = windows.CloseHandle(h)
		t.Errorf("openParent(a process created later) = %v, want errParentGone", err)
	}
	h, err := openParent(os.Getpid())
	if err != nil {
		t.Fatalf("openParent(a process created no later than this one) = %v", err)
	}
	_ = windows.CloseHandle(h)
}

// engineVar makes the test binary, re-run as TestEngineHelper only, an
// Engine that exits at once with status 9.
const engineVar = "STARTER_TEST_ENGINE"

func TestEngineHelper(t *testing.T) {
	if os.Getenv(engineVar) != "exit9" {
		t.Skip("the Engine of TestTheEngineRunsNoInstructionBeforeTheAck")
	}
	os.Exit(9)
}

// ranBeforeAck is how long the ack callback watches the Engine for an
// exit: the Engine, released, exits within tens of milliseconds (under
// Wine too); held suspended, it never does.
const ranBeforeAck = time.Second

// TestTheEngineRunsNoInstructionBeforeTheAck: an Engine that would exit at
// once has not exited a second into the ack, and exits with its own
// status after it.
func TestTheEngineRunsNoInstructionBeforeTheAck(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	var acked bool
	res, err := Run(context.Background(), Options{
		Argv: []string{exe, "-test.run=^TestEngineHelper$"},
		Env:  append(os.Environ(), engineVar+"=exit9"),
		Ack: func(pid int, mode string) error {
			h, err := windows.OpenProcess(windows.SYNCHRONIZE, false, uint32(pid))
			if err != nil {
				return err
			}
			defer windows.CloseHandle(h)
			if ev, _ := windows.WaitForSingleObject(h, uint32(ranBeforeAck/time.Millisecond)); ev == windows.WAIT_OBJECT_0 {
				return errors.New("the Engine ran and exited before the ack")
			}
			acked = true
			return nil
		},
	})
	if err != nil {
		t.Fatalf("Run() = %v", err)
	}
	if !acked || !res.Executed || res.Engine.Code != 9 || res.Reason != ReasonEngineExit {
		t.Errorf("Run() = %+v (acked %v), want the Engine's exit 9 after the ack", res, acked)
	}
	if res.End.Outcome != launch.Empty {
		t.Errorf("job end = %v, want empty", res.End.Outcome)
	}
}
