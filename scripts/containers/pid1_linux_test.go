package containers

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/session-starter/session-starter/internal/testproc"
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

// census is a shell script of builtins only (it forks nothing, so it
// counts itself alone): the container's processes, its zombies, and its
// usleeps (the orphans) that have not exited, from /proc.
const census = `n=0 z=0 s=0
for f in /proc/[0-9]*/status; do
	name=
	while read -r k v _; do
		case $k in
		Name:) name=$v ;;
		State:) n=$((n + 1))
			if [ "$v" = Z ]; then z=$((z + 1)); elif [ "$name" = usleep ]; then s=$((s + 1)); fi
			break ;;
		esac
	done 2>/dev/null <"$f"
done
echo "$n $z $s"`

// counts is census's answer: processes, zombies, live orphans.
type counts struct{ procs, zombies, orphans int }

func (e *Engine) census(t *testing.T, container string) counts {
	t.Helper()
	var c counts
	out := e.Podman(t, "exec", container, "sh", "-c", census)
	if _, err := fmt.Sscan(out, &c.procs, &c.zombies, &c.orphans); err != nil {
		t.Fatalf("census: %q: %v", out, err)
	}
	return c
}

// orphaner is what each exec runs: it starts usleeps of a second in the
// background and exits at once, so that they are orphaned, reparented
// to the container's PID 1 (the exec's parent, conmon, is outside the
// container's PID namespace), and exit there. usleep, not sleep: the
// Engines' own loops sleep.
func orphaner(n int) string {
	return fmt.Sprintf("for i in $(seq %d); do usleep 1000000 </dev/null >/dev/null 2>&1 & done", n)
}

// orphanAndCount runs execs podman execs in container, each orphaning
// per processes, and returns the census at the moment the last orphan exited,
// and the census before.
func (e *Engine) orphanAndCount(t *testing.T, container string, execs, per int) (base, after counts) {
	t.Helper()
	base = e.census(t, container)
	if base.zombies != 0 || base.orphans != 0 {
		t.Fatalf("before the execs: %+v, want no zombie and no orphan", base)
	}
	for range execs {
		e.Podman(t, "exec", container, "sh", "-c", orphaner(per))
	}
	testproc.Eventually(t, "every orphan must exit", func() bool {
		after = e.census(t, container)
		return after.orphans == 0
	})
	return base, after
}

// TestPID1ReapsEveryOrphanOfPodmanExecs: 50 podman execs each orphan 40
// processes, which the container's PID 1 inherits: session-starter reaps
// all 2,000, and the container is back to its processes before.
func TestPID1ReapsEveryOrphanOfPodmanExecs(t *testing.T) {
	e := engineFor(t)
	c := e.Name(t, "reaper")
	e.Podman(t, e.run(t, "reaper", "-d", "--entrypoint", entrypoint, e.Image, "tail", "-f", "/dev/null")...)
	began := time.Now()
	base, after := e.orphanAndCount(t, c, 50, 40)
	t.Logf("after 2,000 exec-orphaned processes (%v): %d zombies, %d processes (%d before)", time.Since(began).Round(time.Millisecond), after.zombies, after.procs, base.procs)
	testproc.Eventually(t, "no zombie, and the processes of before", func() bool {
		after = e.census(t, c)
		return after.zombies == 0 && after.procs == base.procs
	})
}

// TestAnInitThatDoesNotReapKeepsTheOrphansOfPodmanExecsAsZombies: the
// census of the test above sees zombies where PID 1 does not reap
// (tail as the container's command).
func TestAnInitThatDoesNotReapKeepsTheOrphansOfPodmanExecsAsZombies(t *testing.T) {
	e := engineFor(t)
	c := e.Name(t, "noreap")
	e.Podman(t, e.run(t, "noreap", "-d", e.Image, "tail", "-f", "/dev/null")...)
	_, after := e.orphanAndCount(t, c, 2, 40)
	if after.zombies != 80 {
		t.Fatalf("after 80 exec-orphaned processes under an init that does not reap: %+v, want 80 zombies", after)
	}
}

// worker is a process of the session that is still working at the stop
// signal: it traps it, works a second more, and then writes
// /out/<its name> ($0). It says it is ready in /out/<its name>.ready.
const worker = `trap 'sleep 1; echo finished >/out/$0; exit 0' TERM
: >/out/$0.ready
while :; do sleep 0.1; done`

// stubborn ignores the stop signal: only the SIGKILL at the grace's end
// ends it.
const stubborn = `trap '' TERM
: >/out/$0.ready
while :; do sleep 0.1; done`

// stoppable is the Engine of the stop tests: a worker in its group, one
// that left it (setsid), one that ignores the stop signal, and itself,
// which exits 0 on it.
var stoppable = []string{"sh", "-c", `sh -c "$1" group &
setsid sh -c "$1" setsid &
sh -c "$2" stubborn &
trap 'exit 0' TERM
: >/out/engine.ready
while :; do sleep 0.1; done`, "engine", worker, stubborn}

// stopGrace and stopTimeout are the stop tests' --grace and the engine's
// stop timeout (-t): apart enough to tell them apart under load.
const (
	stopGrace   = 3 * time.Second
	stopTimeout = 8
)

// stopAndCheck starts the stop tests' Engine under session-starter
// --grace stopGrace in a container (podman run args before the image),
// stops it with stop (podman stop or pod stop, -t stopTimeout), and
// checks that every worker finished inside the grace, the stubborn
// process took the SIGKILL at its end, before the engine's, and the
// container's exit status is the Engine's.
func (e *Engine) stopAndCheck(t *testing.T, container string, runArgs []string, stop ...string) {
	t.Helper()
	out := t.TempDir()
	args := append(append([]string{"-d", "-v", out + ":/out", "--entrypoint", entrypoint}, runArgs...), e.Image, "--grace", stopGrace.String(), "--")
	e.Podman(t, e.run(t, container, append(args, stoppable...)...)...)
	name := e.Name(t, container)
	testproc.Eventually(t, "the Engine and its workers must be ready", func() bool {
		for _, f := range []string{"engine", "group", "setsid", "stubborn"} {
			if _, err := os.Stat(filepath.Join(out, f+".ready")); err != nil {
				return false
			}
		}
		return true
	})
	began := time.Now()
	e.Podman(t, append(stop, "-t", strconv.Itoa(stopTimeout))...)
	took := time.Since(began)
	t.Logf("%s -t %d with --grace %v took %v", strings.Join(stop[:len(stop)-1], " "), stopTimeout, stopGrace, took.Round(time.Millisecond))
	for _, w := range []string{"group", "setsid"} {
		if b, err := os.ReadFile(filepath.Join(out, w)); err != nil || string(b) != "finished\n" {
			t.Errorf("the %s worker did not finish its work inside the grace: %q, %v", w, b, err)
		}
	}
	if took < stopGrace || took >= stopTimeout*time.Second {
		t.Errorf("the stop took %v, want the grace %v for the stubborn process and less than the engine's %d s", took, stopGrace, stopTimeout)
	}
	if code := e.Podman(t, "inspect", name, "--format", "{{.State.ExitCode}}"); code != "0" {
		t.Errorf("the container exited %s, want the Engine's 0; logs:\n%s", code, e.Podman(t, "logs", name))
	}
}

// TestPodmanStopGivesEveryProcessOfTheSessionTheGrace: podman stop's
// SIGTERM reaches the Engine, a worker in its group and one that left
// it; each finishes its work inside --grace; one that ignores the
// signal is SIGKILLed at the grace's end, before podman's own SIGKILL.
func TestPodmanStopGivesEveryProcessOfTheSessionTheGrace(t *testing.T) {
	e := engineFor(t)
	e.stopAndCheck(t, "stop", nil, "stop", e.Name(t, "stop"))
}

// TestPodmanPodStopGivesEveryProcessOfTheSessionTheGrace: the same
// through podman pod stop, the session-starter container in a pod.
func TestPodmanPodStopGivesEveryProcessOfTheSessionTheGrace(t *testing.T) {
	e := engineFor(t)
	pod := e.Name(t, "pod")
	e.Podman(t, append([]string{"pod", "create", "--name", pod}, e.Labels(t)...)...)
	e.stopAndCheck(t, "engine", []string{"--pod", pod}, "pod", "stop", pod)
}

// TestTheContainersExitStatusIsTheEngines: podman run's status, the
// container's, is the Engine's exit code, and 128+S when the Engine dies
// of signal S (PID 1 of a namespace cannot die of its own signal), as
// restart policies and Jobs read it.
func TestTheContainersExitStatusIsTheEngines(t *testing.T) {
	e := engineFor(t)
	for _, tt := range []struct {
		name, script string
		want         int
	}{
		{"exit7", "exit 7", 7},
		{"sigterm", "kill -TERM $$", 128 + 15},
		{"sigkill", "kill -KILL $$", 128 + 9},
	} {
		cmd := e.Command(e.run(t, tt.name, "--rm", "--entrypoint", entrypoint, e.Image, "sh", "-c", tt.script)...)
		out, err := cmd.CombinedOutput()
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() != tt.want {
			t.Errorf("an Engine that runs %q: podman run ended %v, want exit status %d; output:\n%s", tt.script, err, tt.want, out)
		}
	}
}
