package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/session-starter/session-starter/internal/testproc"
)

// fakeEngine is a stand-in podman, put first in PATH: run starts the
// command after the image and remembers the label it was given; ps
// lists one container, c0ffee (ps and inspect note in DIR/asked that
// they were asked); inspect answers with the label named in
// LABEL_SEEN ("given": the one run got), running, made with --rm as
// AUTO_REMOVE says;
// stop and rm log their arguments to DIR/log and exit STOP_STATUS, or
// with STOP_STATUS hang never answer. The
// three are set at the top: the engine's CLI gets only the endpoint
// environment.
const fakeEngine = `#!/bin/sh
DIR=%s LABEL_SEEN=%s AUTO_REMOVE=%t STOP_STATUS=%s
while :; do
	case $1 in run|ps|inspect|stop|rm) break ;; esac
	shift
done
case $1 in
run)
	printf '%%s\n' "$3" >"$DIR/label"
	shift 4 # run --label L IMAGE
	exec "$@" ;;
ps) echo ps >>"$DIR/asked"; echo c0ffee ;;
inspect)
	echo inspect >>"$DIR/asked"
	label=$(cut -d= -f2 "$DIR/label")
	[ "$LABEL_SEEN" = given ] || label=$LABEL_SEEN
	echo "c0ffee $label $AUTO_REMOVE true" ;;
stop|rm)
	echo "$*" >>"$DIR/log"
	[ "$STOP_STATUS" = hang ] && exec sleep 600
	exit "$STOP_STATUS" ;;
esac
`

// engineSession starts session-starter --containers in front of the
// fake podman, whose container prints ready and sleeps; it returns the
// session and the fake's directory. flags come before "--"; none means
// --grace 1500ms.
func engineSession(t *testing.T, mark string, labelSeen string, autoRemove bool, stopStatus string, flags ...string) (*session, string) {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "podman"), fmt.Appendf(nil, fakeEngine, dir, labelSeen, autoRemove, stopStatus), 0o755); err != nil {
		t.Fatal(err)
	}
	if flags == nil {
		flags = []string{"--grace", "1500ms"}
	}
	args := append(append([]string{"--containers"}, flags...), "--", "podman", "run", "img", "sh", "-c", "echo ready; exec sleep 600")
	s := start(t, mark, args,
		func(c *exec.Cmd) {
			c.Env = append(c.Env, "PATH="+dir+":"+os.Getenv("PATH"))
		})
	if l := s.line(); l != "ready" {
		t.Fatalf("the Engine said %q, want ready; stderr: %s", l, s.stderr)
	}
	return s, dir
}

// engineLog is what the fake engine was asked to stop and remove.
func engineLog(t *testing.T, dir string) string {
	b, err := os.ReadFile(filepath.Join(dir, "log"))
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return string(b)
}

// TestTheEndStopsTheSessionsContainerWithTheGraceThenRemovesIt: the
// engine is asked to stop the container by its id, with the grace in
// whole seconds rounded up, then to remove it (made with --rm).
func TestTheEndStopsTheSessionsContainerWithTheGraceThenRemovesIt(t *testing.T) {
	mark := newMark(t)
	s, dir := engineSession(t, mark, "given", true, "0")
	label, err := os.ReadFile(filepath.Join(dir, "label"))
	if err != nil || !strings.HasPrefix(string(label), "session-starter.session=") {
		t.Fatalf("the engine got label %q (%v), want the session's", label, err)
	}
	s.signal(syscall.SIGTERM)
	wantSignal(t, s.wait(), syscall.SIGTERM, s.stderr)
	if got, want := engineLog(t, dir), "stop --time 2 c0ffee\nrm --force c0ffee\n"; got != want {
		t.Errorf("the engine was asked %q, want %q", got, want)
	}
	noSurvivors(t, mark)
}

// TestAContainerMadeWithoutRmIsStoppedNotRemoved: what the user chose to
// keep is kept.
func TestAContainerMadeWithoutRmIsStoppedNotRemoved(t *testing.T) {
	mark := newMark(t)
	s, dir := engineSession(t, mark, "given", false, "0")
	s.signal(syscall.SIGTERM)
	wantSignal(t, s.wait(), syscall.SIGTERM, s.stderr)
	if got, want := engineLog(t, dir), "stop --time 2 c0ffee\n"; got != want {
		t.Errorf("the engine was asked %q, want %q", got, want)
	}
	noSurvivors(t, mark)
}

// TestAContainerOfAnotherSessionIsNeverTouched: the engine lists a
// container whose label, read back, names another session: nothing is
// asked of it.
func TestAContainerOfAnotherSessionIsNeverTouched(t *testing.T) {
	mark := newMark(t)
	s, dir := engineSession(t, mark, "0123456789abcdef0123456789abcdef", true, "0")
	s.signal(syscall.SIGTERM)
	wantSignal(t, s.wait(), syscall.SIGTERM, s.stderr)
	if got := engineLog(t, dir); got != "" {
		t.Errorf("the engine was asked %q of another session's container, want nothing", got)
	}
	// And not because the end never asked: it listed and read the label.
	if asked, _ := os.ReadFile(filepath.Join(dir, "asked")); string(asked) != "ps\ninspect\n" {
		t.Errorf("the engine was asked %q before acting, want ps then inspect", asked)
	}
	noSurvivors(t, mark)
}

// TestAnEngineThatFailsToStopTheContainerMakesTheEndSurvivors: the
// container may live on: exit 125, the engine's words on stderr, and the
// session's processes ended all the same.
func TestAnEngineThatFailsToStopTheContainerMakesTheEndSurvivors(t *testing.T) {
	mark := newMark(t)
	s, _ := engineSession(t, mark, "given", true, "1")
	s.signal(syscall.SIGTERM)
	wantExit(t, s.wait(), 125, s.stderr)
	testproc.Eventually(t, "the report names the engine's stop", func() bool { return strings.Contains(s.stderr.String(), "podman stop") })
	noSurvivors(t, mark)
}

// TestAnEngineThatNeverAnswersIsGivenUpAfterGracePlusKillBudget: the
// engine's stop hangs; the session's end goes on once grace + kill budget
// (here 1 s) have passed, and says the containers may be left (125).
func TestAnEngineThatNeverAnswersIsGivenUpAfterGracePlusKillBudget(t *testing.T) {
	mark := newMark(t)
	s, dir := engineSession(t, mark, "given", true, "hang", "--kill-budget", "1s")
	s.signal(syscall.SIGTERM)
	wantExit(t, s.wait(), 125, s.stderr)
	if got := engineLog(t, dir); got != "stop --time 0 c0ffee\n" {
		t.Errorf("the engine was asked %q, want one stop without grace", got)
	}
	noSurvivors(t, mark)
}
