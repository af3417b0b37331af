package containers

import (
	"os"
	"strings"
	"testing"
)

// entrypoint is the image's session-starter.
const entrypoint = "/usr/local/bin/session-starter"

// engineFor returns the engine for t, with t's containers removed when it
// ends; t skips unless make test-containers runs it.
func engineFor(t *testing.T) *Engine {
	t.Helper()
	if os.Getenv("SESSION_STARTER_CONTAINERS") != "1" {
		t.Skip("the container tests run with make test-containers (SESSION_STARTER_CONTAINERS=1)")
	}
	e := Setup(t)
	e.Cleanup(t)
	return e
}

// run returns podman's arguments for a container of t named name: the
// labels, then args.
func (e *Engine) run(t *testing.T, name string, args ...string) []string {
	return append(append([]string{"run", "--name", e.Name(t, name)}, e.Labels(t)...), args...)
}

// TestExplainInsideAContainerSaysItIsPID1AndWhichModeItGot: --explain as
// the container's command names the mode it would run in, why, and that
// it is PID 1 with no parent to watch.
func TestExplainInsideAContainerSaysItIsPID1AndWhichModeItGot(t *testing.T) {
	e := engineFor(t)
	out := e.Podman(t, e.run(t, "explain", "--rm", e.Image, entrypoint, "--explain")...)
	lines := strings.Split(out, "\n")
	switch lines[0] {
	case "mode: group":
		if len(lines) < 2 || !strings.HasPrefix(lines[1], "  --containment auto fell back to the process group: ") {
			t.Errorf("--explain says group mode without why:\n%s", out)
		}
	case "mode: cgroup":
	default:
		t.Errorf("--explain's first line is %q, want its mode:\n%s", lines[0], out)
	}
	for _, want := range []string{"\npid1: yes\n  session-starter is PID 1: it reaps every orphan", "\nparent: none\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("--explain in a container lacks %q:\n%s", want, out)
		}
	}
}
