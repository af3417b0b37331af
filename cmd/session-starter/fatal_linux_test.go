package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/session-starter/session-starter/internal/sys"
	"github.com/session-starter/session-starter/internal/testproc"
)

// fatalStops are the signals the Go runtime would crash on (a traceback,
// exit 2) when sent with kill: they end the session as a stop does, and
// then the starter dies of them.
var fatalStops = []syscall.Signal{
	syscall.SIGQUIT, syscall.SIGILL, syscall.SIGTRAP, syscall.SIGABRT, syscall.SIGBUS,
	syscall.SIGFPE, syscall.SIGSEGV, syscall.SIGSYS, syscall.SIGSTKFLT,
}

// TestFatalSignalsEndTheSessionThenTheStarterDiesOfThem: in group mode a
// setsid escapee does not survive kill -QUIT (or any other signal the Go
// runtime would crash on) of the starter; the launcher sees death by that
// signal, without a traceback or a core, and the ended record says so.
func TestFatalSignalsEndTheSessionThenTheStarterDiesOfThem(t *testing.T) {
	needsSubreaper(t)
	for _, sig := range fatalStops {
		t.Run(sys.SignalName(sig), func(t *testing.T) {
			mark := newMark(t)
			r, w, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			dir := t.TempDir()
			s := start(t, mark, []string{"--containment", "group", "--ack", "--status-fd", "3", "--", "sh", "-c", setsidEscape + ` read x`},
				withExtraFiles(w), withDir(dir), withCoreLimit())
			w.Close()
			escapee := escaped(t, s, s.ack())
			s.signal(sig)
			wantSignal(t, s.wait(), sig, s.stderr)
			if strings.Contains(s.stderr.String(), "goroutine") {
				t.Fatalf("stderr has a Go traceback: %s", s.stderr)
			}
			if err := syscall.Kill(escapee, 0); err == nil {
				t.Fatalf("the escapee %d survived kill -%s of the starter", escapee, sys.SignalName(sig))
			}
			recs := statusRecords(t, r)
			ended := recs[len(recs)-1]
			if ended["event"] != "ended" || ended["reason"] != "signal "+sys.SignalName(sig) || ended["outcome"] != "empty" {
				t.Fatalf("ended = %v, want reason signal %s and outcome empty", ended, sys.SignalName(sig))
			}
			if st := ended["starter"].(map[string]any); st["signal"] != sys.SignalName(sig) || st["exit_status"] != float64(128+int(sig)) {
				t.Fatalf("ended.starter = %v, want death by %s (fallback %d)", st, sys.SignalName(sig), 128+int(sig))
			}
			if cores, _ := filepath.Glob(filepath.Join(dir, "core*")); len(cores) > 0 {
				t.Fatalf("found %v, want no core file", cores)
			}
			noSurvivors(t, mark)
		})
	}
}

// firstChild waits until the process pid has a child, by any of its
// threads, and returns its PID: for a starter, the first sign from
// outside that a session is being started.
func firstChild(t *testing.T, pid int) int {
	t.Helper()
	deadline := time.Now().Add(testproc.TooLong)
	p := strconv.Itoa(pid)
	for time.Now().Before(deadline) {
		tasks, _ := filepath.Glob("/proc/" + p + "/task/*/children")
		for _, f := range tasks {
			if f := strings.Fields(readString(f)); len(f) > 0 {
				child, err := strconv.Atoi(f[0])
				if err != nil {
					t.Fatal(err)
				}
				return child
			}
		}
		if _, err := os.Stat("/proc/" + p); err != nil {
			t.Fatalf("the starter exited before it had a child")
		}
	}
	t.Fatalf("the starter had no child within %v", testproc.TooLong)
	return 0
}

func readString(name string) string {
	b, _ := os.ReadFile(name)
	return string(b)
}

// TestAStopSignalAtTheFirstChildIsNeverExit2 sends SIGQUIT at the earliest
// moment a launcher can see the session begin — the starter's first
// child (the gate or the guard) exists — in several trials: the starter
// dies of SIGQUIT every time, without a traceback, and never exits 2,
// the usage-error status. With the stop signals caught in a goroutine, a
// fair share of the trials met the Go runtime's default.
func TestAStopSignalAtTheFirstChildIsNeverExit2(t *testing.T) {
	const trials = 10
	for i := range trials {
		mark := newMark(t)
		dir := t.TempDir()
		s := start(t, mark, []string{"--", "sh", "-c", "touch ran; sleep 600"}, withDir(dir))
		firstChild(t, s.cmd.Process.Pid)
		s.signal(syscall.SIGQUIT)
		ws := s.wait()
		if !ws.Signaled() || ws.Signal() != syscall.SIGQUIT || strings.Contains(s.stderr.String(), "goroutine") {
			t.Fatalf("trial %d: session-starter ended with %s, want death by SIGQUIT and no traceback; stderr: %s", i+1, statusString(ws), s.stderr)
		}
		noSurvivors(t, mark)
	}
}

// TestAsPID1AStopSignalAtTheFirstChildExits128PlusS: as PID 1 of a PID
// namespace, where no process can die of its own signal, SIGQUIT at the
// starter's first child exits 131 (128+S), never 2, whether it came
// before the go-ahead or just after: the Go runtime's own handling gives
// a traceback and exit 2 there, and as PID 1 it does for any uncaught
// stop signal.
func TestAsPID1AStopSignalAtTheFirstChildExits128PlusS(t *testing.T) {
	if _, err := exec.LookPath("unshare"); err != nil {
		t.Skip("unshare not installed")
	}
	const trials = 5
	for range trials {
		mark := newMark(t)
		cmd := exec.Command("unshare", "--pid", "--fork", "--mount-proc", binary, "--", "sh", "-c", "sleep 600")
		cmd.Env = append(os.Environ(), markVar+"="+mark)
		s := startCmd(t, mark, cmd)
		starter := firstChild(t, cmd.Process.Pid)
		firstChild(t, starter)
		if err := syscall.Kill(starter, syscall.SIGQUIT); err != nil {
			t.Fatal(err)
		}
		wantExit(t, s.wait(), 128+int(syscall.SIGQUIT), s.stderr)
		noSurvivors(t, mark)
	}
}

// TestTheRequestedFormCatchesAStopSignalFromItsFirstChild: a Go Engine
// asked to contain itself is a session starter from the request on: its
// first child (the installed session-starter asked its protocol) comes
// after the stop signals are caught, so SIGQUIT then is a stop, never the
// Go runtime's exit 2 with a traceback.
func TestTheRequestedFormCatchesAStopSignalFromItsFirstChild(t *testing.T) {
	engine := goEngine(t)
	const trials = 5
	for i := range trials {
		mark := newMark(t)
		s := startGoEngine(t, mark, engine, filepath.Dir(binary), true, 0)
		firstChild(t, s.cmd.Process.Pid)
		s.signal(syscall.SIGQUIT)
		ws := s.wait()
		if ws.Exited() && ws.ExitStatus() == 2 || strings.Contains(s.stderr.String(), "goroutine") {
			t.Fatalf("trial %d: the requested form ended with %s and stderr %q, want no exit 2 and no traceback", i+1, statusString(ws), s.stderr)
		}
		noSurvivors(t, mark)
	}
}
