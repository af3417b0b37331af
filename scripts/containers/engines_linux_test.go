package containers

import (
	"bufio"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/session-starter/session-starter/internal/mark"
	"github.com/session-starter/session-starter/internal/sys"
	"github.com/session-starter/session-starter/internal/testproc"
)

// sessionLabel is the label --containers gives the Engine's container.
const sessionLabel = "session-starter.session"

// hostBinary is the session-starter setup.sh built, which the tests run
// on this machine as the container's client's supervisor.
func (e *Engine) hostBinary() string {
	return filepath.Join(e.dir, "..", "..", "bin", "session-starter")
}

// server is a container made with --rm whose program ignores both the
// end of its input and SIGTERM, as a leaking stdio server does.
const server = `trap "" TERM; echo up; while :; do sleep 1; done`

// engineArgv is the Engine's command line: podman run, or the docker
// client run through podman's Docker API with a global option (-H).
func (e *Engine) engineArgv(t *testing.T, cli string) []string {
	run := append(append([]string{"run", "--rm", "-i"}, e.Labels(t)...), e.Image, "sh", "-c", server)
	if cli == "docker" {
		return append([]string{e.Docker, "-H", e.DockerHost(t)}, run...)
	}
	return append([]string{"podman"}, run...)
}

// contained is a session-starter --containers started by a test, with
// its started record read.
type contained struct {
	cmd     *exec.Cmd
	in      *os.File // the write end of the Engine's input
	session string
	guard   int
}

// startContained starts session-starter --stdio --containers in front
// of cli's Engine: directly, or with client (a shell) as its launcher.
// It returns once the container said up.
func (e *Engine) startContained(t *testing.T, cli string, client bool, ledger string) *contained {
	t.Helper()
	args := append([]string{"--stdio", "--stdin-grace", "0.2", "--containers", "--grace", "1s", "--status-fd", "3", "--"}, e.engineArgv(t, cli)...)
	name, argv := e.hostBinary(), args
	if client {
		// The client waits for session-starter, as an MCP client does.
		name, argv = "sh", append([]string{"-c", `"$0" "$@"; echo "starter $?"`, e.hostBinary()}, args...)
	}
	cmd := exec.Command(name, argv...)
	cmd.Env = append(e.Env(), "SESSION_STARTER_LEDGER_DIR="+ledger)
	inR, inW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	stR, stW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr, cmd.ExtraFiles = inR, outW, os.Stderr, []*os.File{stW}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	inR.Close()
	outW.Close()
	stW.Close()
	c := &contained{cmd: cmd, in: inW}
	t.Cleanup(func() {
		inW.Close()
		outR.Close()
		stR.Close()
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
	})
	var started struct {
		Event    string `json:"event"`
		Session  string `json:"session"`
		GuardPID int    `json:"guard_pid"`
	}
	if err := json.NewDecoder(stR).Decode(&started); err != nil || started.Event != "started" || started.Session == "" {
		t.Fatalf("the started record: %+v, %v", started, err)
	}
	c.session, c.guard = started.Session, started.GuardPID
	line, err := bufio.NewReader(outR).ReadString('\n')
	if err != nil || line != "up\n" {
		t.Fatalf("the container said %q (%v), want up", line, err)
	}
	if ids := e.sessionContainers(t, c.session); len(ids) != 1 {
		t.Fatalf("containers labelled with the session: %q, want one", ids)
	}
	if marked(t, c.session) == 0 {
		t.Fatal("no process carries the session's mark: the check that none is left would prove nothing")
	}
	return c
}

// ledgerDir is a ledger directory of t's own: private, as the ledger
// requires (t.TempDir's mode is 0755).
func ledgerDir(t *testing.T) string {
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	return dir
}

// sessionContainers lists the containers, running or not, that carry
// the session's label.
func (e *Engine) sessionContainers(t *testing.T, session string) []string {
	t.Helper()
	return strings.Fields(e.Podman(t, "ps", "--all", "--quiet", "--filter", "label="+sessionLabel+"="+session))
}

// marked counts this user's live processes that carry the session's
// mark, found and verified as the guard finds them (package mark).
func marked(t *testing.T, session string) int {
	id, err := mark.Parse(session)
	if err != nil {
		t.Fatal(err)
	}
	found, _, err := mark.Scan(id, 0, os.Getuid(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range found {
		sys.Close(f.Pidfd)
	}
	return len(found)
}

// TestAContainerEngineEndsWithItsSessionHoweverTheSessionEnds: for the
// podman CLI and the docker client, a container made with --rm whose
// program ignores SIGTERM and the end of its input. Whether the client
// closes its pipe, dies of SIGTERM or SIGKILL, or session-starter is
// SIGKILLed, no container of the session is left, and no process.
// Without --containers (TestWithoutContainersTheContainerOutlivesItsClient)
// the container lives on.
func TestAContainerEngineEndsWithItsSessionHoweverTheSessionEnds(t *testing.T) {
	e := engineFor(t)
	for _, cli := range []string{"podman", "docker"} {
		for _, ending := range []string{"close", "client-SIGTERM", "client-SIGKILL", "starter-SIGKILL"} {
			t.Run(cli+"/"+ending, func(t *testing.T) {
				e.Cleanup(t) // the labels name the subtest
				client := strings.HasPrefix(ending, "client-")
				c := e.startContained(t, cli, client, ledgerDir(t))
				switch ending {
				case "close":
					c.in.Close()
				case "client-SIGTERM":
					_ = c.cmd.Process.Signal(syscall.SIGTERM)
				case "client-SIGKILL", "starter-SIGKILL":
					_ = c.cmd.Process.Kill()
				}
				_ = c.cmd.Wait()
				testproc.Eventually(t, "no container of the session left", func() bool {
					return len(e.sessionContainers(t, c.session)) == 0
				})
				testproc.Eventually(t, "no process of the session left", func() bool { return marked(t, c.session) == 0 })
			})
		}
	}
}

// TestReclaimEndsTheContainersOfASessionWhoseStarterAndGuardWereKilled:
// session-starter and its guard SIGKILLed together leave the container
// running, and its client. --reclaim ends the client and has the engine
// remove the container.
func TestReclaimEndsTheContainersOfASessionWhoseStarterAndGuardWereKilled(t *testing.T) {
	e := engineFor(t)
	for _, cli := range []string{"podman", "docker"} {
		t.Run(cli, func(t *testing.T) {
			e.Cleanup(t) // the labels name the subtest
			ledger := ledgerDir(t)
			c := e.startContained(t, cli, false, ledger)
			// The guard stopped first does not act on the starter's death.
			guard, err := sys.PidfdOpen(c.guard)
			if err != nil {
				t.Fatal(err)
			}
			defer sys.Close(guard)
			if err := sys.PidfdSignal(guard, syscall.SIGSTOP); err != nil {
				t.Fatal(err)
			}
			_ = c.cmd.Process.Kill()
			_ = c.cmd.Wait()
			if err := sys.PidfdSignal(guard, syscall.SIGKILL); err != nil && !errors.Is(err, sys.ErrGone) {
				t.Fatal(err)
			}
			if n, err := sys.Poll([]sys.PollFd{{Fd: int32(guard), Events: sys.POLLIN}}, testproc.TooLong); err != nil || n == 0 {
				t.Fatalf("the guard lives after its SIGKILL: %v", err)
			}
			ids := e.sessionContainers(t, c.session)
			if len(ids) != 1 {
				t.Fatalf("after session-starter and its guard were SIGKILLed: containers %q, want the one left running", ids)
			}
			// A dry run lists the container, by its full id, and leaves it.
			if got := reclaimRecord(t, e, ledger, "--dry-run"); len(got) != 1 || !strings.HasPrefix(got[0], ids[0]) {
				t.Fatalf("--reclaim --dry-run listed containers %q, want %s", got, ids[0])
			}
			if left := e.sessionContainers(t, c.session); len(left) != 1 {
				t.Fatalf("after --reclaim --dry-run: containers %q, want the one still there", left)
			}
			cmd := exec.Command(e.hostBinary(), "--reclaim")
			cmd.Env = append(e.Env(), "SESSION_STARTER_LEDGER_DIR="+ledger)
			out, err := cmd.CombinedOutput()
			if err != nil || !strings.Contains(string(out), "session "+c.session+": reclaimed") {
				t.Fatalf("--reclaim: %v\n%s", err, out)
			}
			if ids := e.sessionContainers(t, c.session); len(ids) != 0 {
				t.Fatalf("after --reclaim: containers %q of the session, want none\n%s", ids, out)
			}
			testproc.Eventually(t, "no process of the session left", func() bool { return marked(t, c.session) == 0 })
		})
	}
}

// reclaimRecord runs --reclaim with args and returns the containers its
// record lists for its one session.
func reclaimRecord(t *testing.T, e *Engine, ledger string, args ...string) []string {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	cmd := exec.Command(e.hostBinary(), append([]string{"--reclaim", "--status-fd", "3"}, args...)...)
	cmd.Env = append(e.Env(), "SESSION_STARTER_LEDGER_DIR="+ledger)
	cmd.ExtraFiles = []*os.File{w}
	out, err := cmd.CombinedOutput()
	w.Close()
	if err != nil {
		t.Fatalf("--reclaim %q: %v\n%s", args, err, out)
	}
	var rec struct {
		Sessions []struct{ Containers []string }
	}
	if err := json.NewDecoder(r).Decode(&rec); err != nil || len(rec.Sessions) != 1 {
		t.Fatalf("--reclaim %q's record: %+v, %v; want one session", args, rec, err)
	}
	return rec.Sessions[0].Containers
}

// TestWithoutContainersTheContainerOutlivesItsClient: the leak the flag
// closes. The same session without --containers ends the podman client
// and conmon, and the container is still listed.
func TestWithoutContainersTheContainerOutlivesItsClient(t *testing.T) {
	e := engineFor(t)
	name := e.Name(t, "leak")
	args := append([]string{"--grace", "1s", "--", "podman", "run", "--rm", "-i", "--name", name}, e.Labels(t)...)
	cmd := exec.Command(e.hostBinary(), append(args, e.Image, "sh", "-c", server)...)
	cmd.Env = e.Env()
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	if line, err := bufio.NewReader(out).ReadString('\n'); err != nil || line != "up\n" {
		t.Fatalf("the container said %q (%v), want up", line, err)
	}
	_ = cmd.Process.Signal(syscall.SIGTERM)
	_ = cmd.Wait()
	if got := e.Podman(t, "ps", "--all", "--quiet", "--filter", "name="+name); got == "" {
		t.Fatal("without --containers the container is gone after its session: the leak this test shows is not there")
	}
}

// TestContainersRefusesWhatItCannotOwn: -d and a shell in front are
// usage errors (exit 2), and nothing runs. Without a ledger record the
// guard could not stop the container: exit 125, nothing runs.
func TestContainersRefusesWhatItCannotOwn(t *testing.T) {
	e := engineFor(t)
	run := append(append([]string{"--containers", "--", "podman", "run"}, e.Labels(t)...), e.Image, "true")
	cmd := exec.Command(e.hostBinary(), run...)
	cmd.Env = append(e.Env(), "SESSION_STARTER_LEDGER_DIR="+t.TempDir())
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 125 || !strings.Contains(string(out), "--containers: no ledger record") {
		t.Errorf("--containers with a ledger directory open to others: %v\n%s\nwant exit 125 naming the record", err, out)
	}
	if got := e.Podman(t, "ps", "--all", "--quiet", "--filter", "label="+Label+"="+t.Name()); got != "" {
		t.Errorf("a refused --containers made containers %q", got)
	}
	for _, argv := range [][]string{
		{"podman", "run", "-d", e.Image, "true"},
		{"sh", "-c", "podman run " + e.Image + " true"},
	} {
		cmd := exec.Command(e.hostBinary(), append([]string{"--containers", "--"}, argv...)...)
		cmd.Env = e.Env()
		out, err := cmd.CombinedOutput()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 2 || !strings.Contains(string(out), "--containers") {
			t.Errorf("--containers -- %q: %v\n%s\nwant exit 2 naming the flag", argv, err, out)
		}
	}
}
