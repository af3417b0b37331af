package main

// Escapees of escapees in group mode: each generation is adopted by the
// starter only when the one above it dies, and must be ended then, at
// once, not one generation per round of SIGKILL.

import (
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/session-starter/session-starter/internal/testproc"
)

// setsidChain is an Engine that starts a chain of $1 processes below it,
// each in a session of its own (every level an escapee of the one above),
// each a shell that then becomes sleep 120 (the bound). The deepest says
// "bottom"; the Engine then exits 7 when its input has a line.
const setsidChain = `link='d=$1; if [ "$d" -gt 0 ]; then setsid sh -c "$0" "$0" $((d-1)) & else echo bottom; fi; exec sleep 120'
setsid sh -c "$link" "$link" "$1" &
read x; exit 7`

// TestANestedChainOfSetsidEscapeesEndsWithinTheBudget: a 30-deep chain
// ends within the default kill budget, the Engine's status mirrored and
// nothing left.
func TestANestedChainOfSetsidEscapeesEndsWithinTheBudget(t *testing.T) {
	needsSubreaper(t)
	const depth = 30
	mark := newMark(t)
	s := start(t, mark, []string{"--containment", "group", "--ack", "--", "sh", "-c", setsidChain, "sh", strconv.Itoa(depth - 1)})
	s.ack()
	if l := s.line(); l != "bottom" {
		t.Fatalf("the chain said %q, want bottom", l)
	}
	if n := len(marked(mark)); n < depth {
		t.Fatalf("%d processes of the session are live, want the Engine and a chain of %d", n, depth)
	}
	if _, err := s.in.Write([]byte("x\n")); err != nil {
		t.Fatal(err)
	}
	wantExit(t, s.wait(), 7, s.stderr)
	noSurvivors(t, mark)
}

// setsidStorm is an Engine that starts a fork storm of escapees, each
// process in a session of its own and forking as fast as it can, so that
// each generation is adopted by the starter only when the one above it is
// killed. The
// storm is held at 60 tasks by a pids cgroup ($P, which its first process
// joins): a fork past that fails, and is tried again. It stops forking
// 20 s after it began, and each process has an alarm of 20 s (the
// bounds). The Engine says "storming", and exits 7 when its input has a
// line.
const setsidStorm = `use POSIX (); $| = 1; my $stop = time + 20;
sub storm { POSIX::setsid(); alarm 20;
  while (time < $stop) { my $p = fork; next unless defined $p;
    if ($p == 0) { POSIX::setsid(); alarm 20 } }
  POSIX::_exit(0) }
my $p = fork; if (defined $p && $p == 0) {
  open(my $f, ">", "$ENV{P}/cgroup.procs") or POSIX::_exit(3); print $f "$$\n"; close($f) or POSIX::_exit(3); storm() }
print "storming\n"; my $x = <STDIN>; exit 7;`

// pidsCap makes a cgroup v1 pids cgroup that holds at most max tasks,
// removed after the test, or skips where there is none to make.
func pidsCap(t *testing.T, max int) string {
	t.Helper()
	const root = "/sys/fs/cgroup/pids"
	if _, err := os.Stat(root + "/cgroup.procs"); err != nil {
		t.Skip("no cgroup v1 pids hierarchy to cap the storm with")
	}
	dir := fmt.Sprintf("%s/session-starter-test-%d-%d", root, os.Getpid(), rand.Uint64())
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Skipf("cannot make a pids cgroup to cap the storm with: %v", err)
	}
	t.Cleanup(func() {
		// After the test's own cleanup (registered later, run first)
		// has killed what was left.
		testproc.Eventually(t, "the storm's pids cgroup must empty", func() bool {
			b, err := os.ReadFile(dir + "/pids.current")
			return err == nil && strings.TrimSpace(string(b)) == "0"
		})
		if err := os.Remove(dir); err != nil {
			t.Error(err)
		}
	})
	if err := os.WriteFile(dir+"/pids.max", []byte(strconv.Itoa(max)), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestASetsidForkStormOfEscapeesEnds: a storm whose processes are adopted
// by the starter as fast as they fork is stopped top-down and ended
// within the default kill budget, the Engine's status mirrored and
// nothing left.
func TestASetsidForkStormOfEscapeesEnds(t *testing.T) {
	needsSubreaper(t)
	needPerl(t)
	capped := pidsCap(t, 60)
	mark := newMark(t)
	s := start(t, mark, []string{"--containment", "group", "--ack", "--", "perl", "-e", setsidStorm},
		func(c *exec.Cmd) { c.Env = append(c.Env, "P="+capped) })
	s.ack()
	if l := s.line(); l != "storming" {
		t.Fatalf("the Engine said %q, want storming", l)
	}
	testproc.Eventually(t, "the storm must reach its cap", func() bool {
		b, err := os.ReadFile(capped + "/pids.current")
		n, _ := strconv.Atoi(strings.TrimSpace(string(b)))
		return err == nil && n >= 55
	})
	if _, err := s.in.Write([]byte("x\n")); err != nil {
		t.Fatal(err)
	}
	wantExit(t, s.wait(), 7, s.stderr)
	noSurvivors(t, mark)
}

// TestTheGracesStopSignalReachesEveryGenerationOfAChainOfEscapees: each
// level of a 30-deep chain of setsid escapees dies of the stop signal
// (they are sleeps), as soon as it is adopted or found below one that
// was: the end is graceful, with no round of SIGKILL, long before the
// grace is over, and the Engine's death by the stop signal is mirrored.
func TestTheGracesStopSignalReachesEveryGenerationOfAChainOfEscapees(t *testing.T) {
	needsSubreaper(t)
	const depth = 30
	mark := newMark(t)
	s := start(t, mark, []string{"--containment", "group", "--ack", "--grace", "10m", "--log-level", "info", "--log-format", "json", "--",
		"sh", "-c", setsidChain, "sh", strconv.Itoa(depth - 1)})
	s.ack()
	if l := s.line(); l != "bottom" {
		t.Fatalf("the chain said %q, want bottom", l)
	}
	s.signal(syscall.SIGTERM)
	wantSignal(t, s.wait(), syscall.SIGTERM, s.stderr)
	if rec := endRecord(t, s.stderr.String()); rec.KillRounds != 0 || rec.Survivors != 0 {
		t.Fatalf("session end = %+v, want no round of SIGKILL and no survivor", rec)
	}
	noSurvivors(t, mark)
}
