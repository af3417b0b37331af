package main

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// statusRecords reads every JSON record from r.
func statusRecords(t *testing.T, r *os.File) []map[string]any {
	t.Helper()
	var out []map[string]any
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		var rec map[string]any
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Fatalf("status line %q: %v", sc.Text(), err)
		}
		out = append(out, rec)
	}
	return out
}

func TestStatusDescriptorCarriesStartedThenEnded(t *testing.T) {
	mark := newMark(t)
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	s := start(t, mark, []string{"--containment", "group", "--status-fd", "3", "--", "sh", "-c", `echo $$; echo "$SESSION_STARTER_SESSION"; ls /proc/$$/fd; exit 42`}, withExtraFiles(w))
	w.Close()
	enginePID := s.line()
	sessionMark := s.line()
	fds := s.rest()
	wantExit(t, s.wait(), 42, s.stderr)
	if strings.Contains(fds, "\n3\n") {
		t.Fatalf("Engine's descriptors:\n%s\nwant no status descriptor 3", fds)
	}
	recs := statusRecords(t, r)
	if len(recs) != 2 || recs[0]["event"] != "started" || recs[1]["event"] != "ended" {
		t.Fatalf("status records = %v, want started then ended", recs)
	}
	started, ended := recs[0], recs[1]
	if strconv.Itoa(int(started["pid"].(float64))) != enginePID || started["pgid"] != started["pid"] || started["mode"] != "group" {
		t.Errorf("started = %v, want the Engine's pid %s leading its group", started, enginePID)
	}
	if g, ok := started["guard_pid"].(float64); !ok || g <= 1 {
		t.Errorf("started = %v, want the guard's pid", started)
	}
	// The session's id is the last element of the Engine's mark.
	if id, ok := started["session"].(string); !ok || len(id) != 32 || !strings.HasSuffix(sessionMark, id) {
		t.Errorf("started.session = %v, want the last element of the Engine's mark %q", started["session"], sessionMark)
	}
	if ended["reason"] != "engine-exit" || ended["exit_code"] != 42.0 || ended["signal"] != nil || ended["executed"] != true || ended["outcome"] != "empty" {
		t.Errorf("ended = %v, want the Engine's exit 42 and an empty group", ended)
	}
	if ended["mode"] != started["mode"] {
		t.Errorf("ended mode %v, started mode %v: want the same", ended["mode"], started["mode"])
	}
	if st := ended["starter"].(map[string]any); st["exit_status"] != 42.0 || st["signal"] != nil {
		t.Errorf("ended.starter = %v, want exit_status 42", st)
	}
	noSurvivors(t, mark)
}

// TestStatusTellsTheStartersOwnStatusFromTheEngines: 127 from the Engine
// and 127 from session-starter read the same in a wait status.
func TestStatusTellsTheStartersOwnStatusFromTheEngines(t *testing.T) {
	for _, tt := range []struct {
		name     string
		argv     []string
		executed bool
		reason   string
	}{
		{"the Engine's 127", []string{"sh", "-c", "exit 127"}, true, "engine-exit"},
		{"PROGRAM not found", []string{"no-such-program-anywhere"}, false, "failed"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r, w, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			cmd := exec.Command(binary, append([]string{"--status-fd", "3", "--"}, tt.argv...)...)
			cmd.ExtraFiles = []*os.File{w}
			_ = cmd.Run()
			w.Close()
			if code := cmd.ProcessState.ExitCode(); code != 127 {
				t.Fatalf("exit status %d, want 127", code)
			}
			recs := statusRecords(t, r)
			ended := recs[len(recs)-1]
			if ended["event"] != "ended" || ended["executed"] != tt.executed || ended["reason"] != tt.reason {
				t.Fatalf("ended = %v, want executed %v, reason %s", ended, tt.executed, tt.reason)
			}
		})
	}
}

func TestStatusRecordsASignalDeathAndTheStop(t *testing.T) {
	mark := newMark(t)
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	s := start(t, mark, []string{"--status-fd", "3", "--", "sh", "-c", treeEngine}, withExtraFiles(w))
	w.Close()
	if got := s.line(); got != "ready" {
		t.Fatalf("Engine said %q, want ready", got)
	}
	s.signal(syscall.SIGTERM)
	wantSignal(t, s.wait(), syscall.SIGKILL, s.stderr)
	recs := statusRecords(t, r)
	ended := recs[len(recs)-1]
	if ended["reason"] != "signal TERM" || ended["signal"] != "KILL" || ended["exit_code"] != nil {
		t.Fatalf("ended = %v, want reason signal TERM and the Engine killed", ended)
	}
	if st := ended["starter"].(map[string]any); st["signal"] != "KILL" || st["exit_status"] != 137.0 {
		t.Fatalf("ended.starter = %v, want death by KILL (fallback 137)", st)
	}
	noSurvivors(t, mark)
}

func TestBadStatusDescriptorIsAUsageError(t *testing.T) {
	ro, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	for _, tt := range []struct {
		name  string
		args  []string
		extra []*os.File
		msg   string
	}{
		{"not open", []string{"--status-fd", "9"}, nil, "not a descriptor the launcher passed"},
		{"read only", []string{"--status-fd", "3"}, []*os.File{ro}, "not open for writing"},
		{"stderr", []string{"--status-fd", "2"}, nil, "must be greater than 2"},
		{"the control descriptor", []string{"--control-fd", "3", "--status-fd", "3"}, []*os.File{r}, "the same descriptor as --control-fd"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			cmd := exec.Command(binary, append(tt.args, "--", "touch", "ran")...)
			cmd.Dir = dir
			cmd.ExtraFiles = tt.extra
			out, _ := cmd.CombinedOutput()
			if cmd.ProcessState.ExitCode() != 2 || !strings.Contains(string(out), tt.msg) {
				t.Fatalf("exit %d, output %q; want 2 and %q", cmd.ProcessState.ExitCode(), out, tt.msg)
			}
			if _, err := os.Stat(filepath.Join(dir, "ran")); err == nil {
				t.Fatal("the Engine ran, want nothing executed")
			}
		})
	}
}

// TestEscapeesSeenCountsOnlyWhatLeftTheGroup: an orphan that stays in the
// Engine's group (a background process of a shell that exits) is the
// group's, not an escapee; one that left it with setsid is. Both ignore
// the stop signal, so that each is still live when the grace's looks
// count it.
func TestEscapeesSeenCountsOnlyWhatLeftTheGroup(t *testing.T) {
	needsSubreaper(t) // escapees are the adopted processes
	for _, tt := range []struct {
		name    string
		escape  string
		escapes bool
	}{
		{"an orphan in the group", `sh -c 'trap "" TERM; echo $$; exec sleep 600' &`, false},
		{"a setsid escapee", ignoringEscape, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			mark := newMark(t)
			r, w, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			s := start(t, mark, []string{"--containment", "group", "--grace", "0.3s", "--status-fd", "3", "--ack", "--", "sh", "-c", tt.escape + ` read x; exit 3`}, withExtraFiles(w))
			w.Close()
			pid := s.ack()
			if tt.escapes {
				escaped(t, s, pid) // it has left the group before the Engine exits
			} else {
				s.line()
			}
			if _, err := s.in.Write([]byte("x\n")); err != nil {
				t.Fatal(err)
			}
			wantExit(t, s.wait(), 3, s.stderr)
			recs := statusRecords(t, r)
			ended := recs[len(recs)-1]
			want := map[bool]float64{false: 0, true: 1}[tt.escapes]
			if ended["escapees_seen"] != want {
				t.Errorf("ended = %v, want escapees_seen %v", ended, want)
			}
			noSurvivors(t, mark)
		})
	}
}
