package main

// Storms and width: a group that forks as fast as it can
// while it is ended, and a group thousands wide, are empty when the starter
// exits — within the kill budget, without survivors.

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// stormEngine grows a binary tree of processes 10 levels deep: at most
// 2,047 in all, each forking as soon as it exists, each with an alarm that
// ends it after 10 s should anything fail to (the bound of the storm). It
// says "storming" before the first fork.
const stormEngine = `$| = 1;
sub grow { my $d = shift; for (1..2) { my $p = fork; if (defined $p && $p == 0) { alarm 10; grow($d-1) if $d > 0; sleep 10; exit 0 } } }
alarm 10; print "storming\n"; grow(9); sleep 10;`

// wideEngine starts N sleeping children (its argument), each with an
// alarm of 600 s as a bound, says "forked K" after every 250 and "ready
// K" once all were forked. On a loaded machine the forks take minutes:
// the progress lines let a reader wait on each step, not on the whole.
const wideEngine = `$| = 1; my $n = shift; my $k = 0;
for (1..$n) { my $p = fork; if (defined $p && $p == 0) { alarm 600; sleep 600; exit 0 } $k++ if defined $p; print "forked $k\n" if $_ % 250 == 0 }
print "ready $k\n"; sleep 600;`

func needPerl(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("perl"); err != nil {
		skipUnlessCI(t, "perl is not installed (apt-get install perl)")
	}
}

// sessionEnd is the starter's "session end" log record (info level).
type sessionEnd struct {
	Reason     string  `json:"reason"`
	KillRounds int     `json:"kill_rounds"`
	Survivors  int     `json:"survivors"`
	GroupEnd   float64 `json:"group_end"` // milliseconds
	Status     string  `json:"status"`
}

// endRecord finds the "session end" record in the starter's stderr.
func endRecord(t *testing.T, stderr string) sessionEnd {
	t.Helper()
	sc := bufio.NewScanner(strings.NewReader(stderr))
	for sc.Scan() {
		var rec struct {
			Message string `json:"message"`
			sessionEnd
		}
		if json.Unmarshal(sc.Bytes(), &rec) == nil && rec.Message == "session end" {
			return rec.sessionEnd
		}
	}
	t.Fatalf("no session end record in stderr: %s", stderr)
	return sessionEnd{}
}

// TestAForkStormIsEmptyWhenTheStarterExits stops sessions whose Engine is
// in the middle of a fork storm: when the starter exits, no process of
// the storm is live, and the starter mirrors the Engine's SIGKILL.
func TestAForkStormIsEmptyWhenTheStarterExits(t *testing.T) {
	needPerl(t)
	n := trials(4, 40)
	var rounds []int
	for i := range n {
		mark := newMark(t)
		s := start(t, mark, []string{"--ack", "--log-level", "info", "--log-format", "json", "--", "perl", "-e", stormEngine})
		s.ack()
		if got := s.line(); got != "storming" {
			t.Fatalf("Engine said %q, want storming", got)
		}
		// The tree takes a few hundred milliseconds to grow on two
		// cores: land the stop anywhere in it.
		delay := rand.N(400 * time.Millisecond)
		time.Sleep(delay)
		grown := len(marked(mark))
		s.signal(syscall.SIGTERM)
		began := time.Now()
		ws := s.wait()
		took := time.Since(began)
		// The starter exits only once the group has no live
		// member, so none may be found now — no waiting.
		if left := marked(mark); len(left) > 0 {
			t.Errorf("trial %d: %d processes of the storm live when the starter had exited: %s", i, len(left), describe(left[:min(len(left), 10)]))
		}
		wantSignal(t, ws, syscall.SIGKILL, s.stderr)
		rec := endRecord(t, s.stderr.String())
		rounds = append(rounds, rec.KillRounds)
		t.Logf("trial %d: stopped %v into the storm with ~%d processes; ended in %v, %d kill rounds, group end %.0f ms", i, delay.Round(time.Millisecond), grown, took.Round(time.Millisecond), rec.KillRounds, rec.GroupEnd)
		noSurvivors(t, mark)
	}
	t.Logf("kill rounds per trial: %v", rounds)
}

// TestAGroupOfThousandsOfSleepersAllEndBeforeTheStarterExits: 5,000
// members (10,000 under make torture) all end, and the starter exits
// only after them. The kill budget is generous: on saturated cores
// thousands of exits of one program queue on its file mapping's lock
// (the manual's limits), and how fast they end is the benchmark's
// concern (scripts/bench/NOTEBOOK.md), not this test's.
func TestAGroupOfThousandsOfSleepersAllEndBeforeTheStarterExits(t *testing.T) {
	skipUnderEmulator(t, "thousands of forks do not fit in the test's bounds, nor their end in the default kill budget")
	needPerl(t)
	width := trials(5000, 10000)
	mark := newMark(t)
	s := start(t, mark, []string{"--ack", "--kill-budget", "50s", "--log-level", "info", "--log-format", "json", "--", "perl", "-e", wideEngine, strconv.Itoa(width)})
	s.ack()
	// Each line is one event, read within testproc.TooLong.
	var k int
	for {
		l := s.line()
		if _, err := fmt.Sscanf(l, "ready %d", &k); err == nil {
			break
		}
		if _, err := fmt.Sscanf(l, "forked %d", &k); err != nil {
			t.Fatalf("Engine said %q, want forked K or ready K", l)
		}
	}
	if k != width {
		t.Fatalf("Engine forked %d of %d", k, width)
	}
	s.signal(syscall.SIGTERM)
	began := time.Now()
	ws := s.wait()
	took := time.Since(began)
	if left := marked(mark); len(left) > 0 {
		t.Errorf("%d members live when the starter had exited", len(left))
	}
	wantSignal(t, ws, syscall.SIGKILL, s.stderr)
	rec := endRecord(t, s.stderr.String())
	t.Logf("%d sleepers ended in %v (%d kill rounds, group end %.0f ms)", width, took.Round(time.Millisecond), rec.KillRounds, rec.GroupEnd)
	noSurvivors(t, mark)
}
