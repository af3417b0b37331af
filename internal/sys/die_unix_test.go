//go:build darwin || freebsd || linux

package sys

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/session-starter/session-starter/internal/testproc"
)

func TestMain(m *testing.M) {
	testproc.RunHelper()
	// The tests must leave no goroutine behind (helpers exit above).
	code := testproc.CheckGoroutinesEnded(m.Run())
	os.Exit(testproc.CheckHelpersUsed(code))
}

// helperCommand returns a command that runs this test binary as the
// helper name, with a context that bounds it.
func helperCommand(t *testing.T, name string, args ...string) *exec.Cmd {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testproc.TooLong)
	t.Cleanup(cancel)
	base := testproc.HelperCommand(t, name, args...)
	// On timeout, os/exec kills the helper: this test's unreaped child, so
	// its number (or, on Linux, its pidfd) names it alone.
	cmd := exec.CommandContext(ctx, base.Path, base.Args[1:]...)
	cmd.Env = base.Env
	return cmd
}

// dieReturned is the helper die's exit status when Die returned.
const dieReturned = 5

func init() {
	// die N: allow core dumps of any size, then die of signal N with Die,
	// which must switch core dumps off again by itself; exit dieReturned
	// if Die returns.
	testproc.Register("die", func(args []string) int {
		n, err := strconv.Atoi(args[0])
		if err != nil {
			return 3
		}
		inf := &unix.Rlimit{Cur: unix.RLIM_INFINITY, Max: unix.RLIM_INFINITY}
		if err := unix.Setrlimit(unix.RLIMIT_CORE, inf); err != nil {
			fmt.Fprintln(os.Stderr, "setrlimit:", err)
			return 4
		}
		Die(syscall.Signal(n))
		return dieReturned
	})
}

func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// stopSignals stop a process by default; Die is never asked to die of
// one (no Engine ends by it).
var stopSignals = []syscall.Signal{syscall.SIGSTOP, syscall.SIGTSTP, syscall.SIGTTIN, syscall.SIGTTOU}

// TestDieEndsTheProcessByEveryDeadlySignalWithoutCoreOrTraceback: also
// by the signals the Go runtime handles itself (a dump and exit 2 for
// QUIT, ILL, TRAP, ABRT, SEGV, BUS, FPE and on the BSDs EMT; PIPE, USR1
// and the other notify-only signals dropped), and without the core that
// a core-dumping signal makes with RLIMIT_CORE raised.
func TestDieEndsTheProcessByEveryDeadlySignalWithoutCoreOrTraceback(t *testing.T) {
	for _, sig := range DeadlySignals() {
		t.Run(SignalName(sig), func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			cmd := helperCommand(t, "die", strconv.Itoa(int(sig)))
			cmd.Dir = dir
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			start := time.Now()
			err := cmd.Run()
			ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus)
			if !ok || !ws.Signaled() || ws.Signal() != sig {
				t.Fatalf("helper die %s: %v (status %#x), want death by %s; stderr:\n%s", SignalName(sig), err, ws, SignalName(sig), stderr.Bytes())
			}
			if ws.CoreDump() {
				t.Errorf("helper die %s: core dump flag set, want none", SignalName(sig))
			}
			if names := dirNames(t, dir); len(names) > 0 {
				t.Errorf("helper die %s left %v in its working directory, want nothing", SignalName(sig), names)
			}
			if stderr.Len() > 0 {
				t.Errorf("helper die %s wrote to stderr:\n%s\nwant nothing", SignalName(sig), stderr.Bytes())
			}
			t.Logf("helper died of %s after %v", SignalName(sig), time.Since(start))
		})
	}
}

// TestDieOfASignalOutsideDeadlySignalsReturns: every signal of 1 to 31
// that DeadlySignals leaves out, stops aside, is ignored by default: Die
// sets its default and sends it, and the process lives on. With the test
// above, DeadlySignals is the exact list of the signals an Engine can die
// of (a missing one would end the helper here).
func TestDieOfASignalOutsideDeadlySignalsReturns(t *testing.T) {
	deadly := DeadlySignals()
	for n := syscall.Signal(1); n <= 31; n++ {
		if slices.Contains(deadly, n) || slices.Contains(stopSignals, n) {
			continue
		}
		t.Run(SignalName(n), func(t *testing.T) {
			t.Parallel()
			cmd := helperCommand(t, "die", strconv.Itoa(int(n)))
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			err := cmd.Run()
			if code := cmd.ProcessState.ExitCode(); code != dieReturned {
				t.Fatalf("helper die %s: %v, want exit %d (Die returned: ignored by default); stderr:\n%s", SignalName(n), err, dieReturned, stderr.Bytes())
			}
		})
	}
}
