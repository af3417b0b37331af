package launch_test

// The records the real binary writes have the shapes of the fixtures in
// testdata/records: the tests above pin the fixtures to the Go types, and
// these pin what the binary writes to the fixtures, so that a record the
// JavaScript and Python launchers never saw in a fixture fails here.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/session-starter/session-starter/internal/testproc"
	"github.com/session-starter/session-starter/starter/launch"
)

// recordsMarkVar marks the processes of these tests' sessions.
const recordsMarkVar = "SESSION_STARTER_RECORDS_MARK"

// productBinary builds cmd/session-starter once, without -race, as
// shipped (CGO_ENABLED=0).
var productBinary = sync.OnceValues(func() (string, error) {
	// In the stand-in's directory, which TestMain removes.
	dir := os.Getenv(standInVar)
	if dir == "" {
		return "", fmt.Errorf("no %s: TestMain's set-up did not run", standInVar)
	}
	bin := filepath.Join(dir, "product", "session-starter")
	build := exec.Command("go", "build", "-o", bin, "../../cmd/session-starter")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build ./cmd/session-starter: %v\n%s", err, out)
	}
	return bin, nil
})

// recordsMark returns a mark for this test's sessions; at cleanup any
// live process that carries it is SIGKILLed, through a pidfd with the mark
// checked again after the open, and the test fails.
func recordsMark(t *testing.T) string {
	t.Helper()
	mark := fmt.Sprintf("%d-%d", os.Getpid(), rand.Uint64())
	t.Cleanup(func() {
		if left := recordsMarked(mark); len(left) > 0 {
			for _, pid := range left {
				fd, err := unix.PidfdOpen(pid, 0)
				if err != nil {
					continue
				}
				if slices.Contains(recordsMarked(mark), pid) {
					_ = unix.PidfdSendSignal(fd, unix.SIGKILL, nil, 0)
				}
				unix.Close(fd)
			}
			t.Errorf("processes of this test's sessions were left and were killed: %v", left)
		}
	})
	return mark
}

// recordsMarked lists the live processes (not zombies) whose environment
// carries mark.
func recordsMarked(mark string) []int {
	want := []byte(recordsMarkVar + "=" + mark + "\x00")
	entries, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		env, err := os.ReadFile("/proc/" + e.Name() + "/environ")
		if err != nil || !bytes.Contains(env, want) {
			continue
		}
		if stat, err := os.ReadFile("/proc/" + e.Name() + "/stat"); err == nil {
			if i := bytes.LastIndexByte(stat, ')'); i > 0 && len(stat) > i+2 && stat[i+2] == 'Z' {
				continue
			}
		}
		out = append(out, pid)
	}
	return out
}

// written is what one run of the binary wrote: its first line of stdout
// and its status records.
type written struct {
	ack     string
	records []string
}

// runBinary runs the binary with args, "--ack --status-fd 3" first, and
// with mark in its environment, and returns what it wrote once it has
// exited. setup, if not nil, changes the command before it starts;
// during, if not nil, runs once the started record was read, with the
// running command and the record. Bounded by testproc.TooLong.
func runBinary(t *testing.T, mark string, args []string, setup func(*exec.Cmd), during func(*exec.Cmd, launch.StatusStarted)) written {
	t.Helper()
	bin, err := productBinary()
	if err != nil {
		t.Fatal(err)
	}
	statR, statW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer statR.Close()
	cmd := exec.Command(bin, append([]string{"--ack", "--status-fd", "3"}, args...)...)
	cmd.Env = append(os.Environ(), recordsMarkVar+"="+mark)
	cmd.ExtraFiles = []*os.File{statW}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if setup != nil {
		setup(cmd)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	statW.Close()
	done := make(chan struct{})
	timer := time.AfterFunc(testproc.TooLong, func() { _ = cmd.Process.Kill() })
	defer timer.Stop()
	var w written
	sc := bufio.NewScanner(statR)
	for sc.Scan() {
		w.records = append(w.records, sc.Text())
		var started launch.StatusStarted
		if during != nil && json.Unmarshal(sc.Bytes(), &started) == nil && started.Event == "started" {
			during(cmd, started)
		}
	}
	go func() {
		_ = cmd.Wait()
		close(done)
	}()
	<-done
	w.ack, _, _ = strings.Cut(stdout.String(), "\n")
	if len(w.records) == 0 {
		t.Fatalf("session-starter %q wrote no status record; %v; stderr: %s", args, cmd.ProcessState, stderr.String())
	}
	return w
}

// fixtureShapes returns the key paths of each line of a fixture file,
// joined by spaces, as a set.
func fixtureShapes(t *testing.T, files ...string) map[string]bool {
	t.Helper()
	shapes := map[string]bool{}
	for _, f := range files {
		for _, line := range fixtureLines(t, f) {
			paths, err := keyPaths([]byte(line))
			if err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			shapes[strings.Join(paths, " ")] = true
		}
	}
	return shapes
}

// TestTheBinaryWritesRecordsOfTheFixturesShapes runs the real binary
// through the ends a session can have and checks that its ack line has the
// keys of the ack fixtures in their order, and that each status record has
// the shape (its keys, nested ones included, in their order) of a fixture.
func TestTheBinaryWritesRecordsOfTheFixturesShapes(t *testing.T) {
	ackShapes := fixtureShapes(t, "ack.jsonl")
	recordShapes := fixtureShapes(t, "started.jsonl", "ended.jsonl")
	term := func(c *exec.Cmd, _ launch.StatusStarted) { _ = c.Process.Signal(syscall.SIGTERM) }
	var control *os.File // the control pipe's write end
	tests := []struct {
		name   string
		args   []string
		setup  func(*exec.Cmd)
		during func(*exec.Cmd, launch.StatusStarted)
		ack    bool // an ack line is written
		reason string
	}{
		{name: "an exit code, a process left behind", args: []string{"--", "sh", "-c", "sleep 300 & exit 3"}, ack: true, reason: "engine-exit"},
		{name: "group mode", args: []string{"--containment", "group", "--", "true"}, ack: true, reason: "engine-exit"},
		{name: "a signal", args: []string{"--", "sh", "-c", "kill -USR1 $$"}, ack: true, reason: "engine-exit"},
		{name: "a stop", args: []string{"--", "sleep", "300"}, during: term, ack: true, reason: "signal TERM"},
		{name: "a timeout with a grace", args: []string{"--timeout", "0.1", "--grace", "5s", "--", "sleep", "300"}, ack: true, reason: "timeout"},
		{name: "the control pipe's end", args: []string{"--control-fd", "4", "--", "sleep", "300"}, ack: true, reason: "control-closed",
			setup: func(c *exec.Cmd) {
				r, w, err := os.Pipe()
				if err != nil {
					t.Fatal(err)
				}
				c.ExtraFiles = append(c.ExtraFiles, r)
				control = w
				t.Cleanup(func() { r.Close(); w.Close() })
			},
			during: func(*exec.Cmd, launch.StatusStarted) { control.Close() }},
		{name: "PROGRAM not found", args: []string{"--", "/nonexistent/engine"}, reason: "failed"},
		{name: "the launcher gone before the Engine ran", args: []string{"--parent-pid", "1", "--", "true"}, reason: "parent-gone"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mark := recordsMark(t)
			w := runBinary(t, mark, tt.args, tt.setup, tt.during)
			checkShapes(t, w, ackShapes, recordShapes, tt.ack, tt.reason)
		})
	}
}

// TestTheBinaryWritesSurvivorsOfTheFixturesShape: the ended record of a
// session whose member could not be killed (a root process in the group
// of a session-starter run as nobody, as in cmd/session-starter's
// TestMembersThatCannotBeKilledAreReportedAsSurvivors) has the shape of
// the fixture with survivors.
func TestTheBinaryWritesSurvivorsOfTheFixturesShape(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to run session-starter as another user")
	}
	const nobody = 65534
	bin, err := productBinary()
	if err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{filepath.Dir(bin), filepath.Dir(filepath.Dir(bin))} {
		if err := os.Chmod(dir, 0o755); err != nil { // for nobody to execute it
			t.Fatal(err)
		}
	}
	mark := recordsMark(t)
	var root *exec.Cmd
	t.Cleanup(func() {
		if root != nil && root.Process != nil {
			_ = root.Process.Kill()
			_ = root.Wait()
		}
	})
	w := runBinary(t, mark, []string{"--kill-budget", "0.3s", "--", "sleep", "300"},
		func(c *exec.Cmd) {
			c.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
		},
		func(c *exec.Cmd, started launch.StatusStarted) {
			// A root process of this test joins the Engine's group (the
			// same session as ours), then the stop.
			root = exec.Command("sleep", "300")
			root.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pgid: started.PGID}
			if err := root.Start(); err != nil {
				t.Fatal(err)
			}
			_ = c.Process.Signal(syscall.SIGTERM)
		})
	checkShapes(t, w, fixtureShapes(t, "ack.jsonl"), fixtureShapes(t, "started.jsonl", "ended.jsonl"), true, "signal TERM")
	ended := w.records[len(w.records)-1]
	if !strings.Contains(ended, `"outcome":"survivors"`) || !strings.Contains(ended, fmt.Sprintf(`"pid":%d,"uid":0`, root.Process.Pid)) {
		t.Fatalf("ended record %s: want the root process %d as a survivor", ended, root.Process.Pid)
	}
}

// checkShapes checks w against the fixtures' shapes: the ack (if wantAck)
// and every record, the ended record last with the reason wanted; and
// that the Go types read every record back byte for byte.
func checkShapes(t *testing.T, w written, ackShapes, recordShapes map[string]bool, wantAck bool, reason string) {
	t.Helper()
	if wantAck {
		paths, err := keyPaths([]byte(w.ack))
		if err != nil || !ackShapes[strings.Join(paths, " ")] {
			t.Errorf("ack line %q has keys %q, %v; want those of the ack fixtures, in their order", w.ack, paths, err)
		}
		if _, _, err := launch.ParseAck([]byte(w.ack)); err != nil {
			t.Errorf("ParseAck(%s) = %v", w.ack, err)
		}
	} else if strings.HasPrefix(w.ack, "{") {
		t.Errorf("first line %q: want no ack", w.ack)
	}
	for _, rec := range w.records {
		paths, err := keyPaths([]byte(rec))
		if err != nil || !recordShapes[strings.Join(paths, " ")] {
			t.Errorf("record %s: keys %q, %v: no fixture in started.jsonl or ended.jsonl has this shape; add one", rec, paths, err)
		}
	}
	ended, err := launch.ReadEnded(strings.NewReader(strings.Join(w.records, "\n")))
	if err != nil || ended.Reason != reason {
		t.Errorf("ReadEnded() = %+v, %v; want the reason %q", ended, err, reason)
	}
	if last := w.records[len(w.records)-1]; !strings.HasPrefix(last, `{"event":"ended"`) {
		t.Errorf("last record %s: want the ended record", last)
	}
}
