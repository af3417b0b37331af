package testproc

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestMain(m *testing.M) {
	os.Exit(CheckGoroutinesEnded(m.Run()))
}

// parked is a goroutine a test leaves running: it says it started and
// blocks until release is closed.
func parked(started chan<- struct{}, release <-chan struct{}) {
	close(started)
	<-release
}

const parkedFrame = "github.com/session-starter/session-starter/internal/testproc.parked("

func TestLeakedGoroutinesFindsAGoroutineLeftRunning(t *testing.T) {
	started, release, done := make(chan struct{}), make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		parked(started, release)
	}()
	<-started
	defer func() {
		close(release)
		<-done
	}()
	// CheckGoroutinesEnded would look for ten seconds.
	left := awaitNoGoroutine(100*time.Millisecond, leakedNow)
	if len(left) != 1 || !strings.Contains(left[0], parkedFrame) {
		t.Fatalf("leaked goroutines = %q, want the parked goroutine alone", left)
	}
}

// TestLeakedGoroutinesReportsNothingWhenNoneIsLeft runs in a subtest, so
// that the test runner has goroutines waiting in three places: the main
// goroutine, the parent test's and this one's.
func TestLeakedGoroutinesReportsNothingWhenNoneIsLeft(t *testing.T) {
	t.Run("subtest", func(t *testing.T) {
		if left := awaitNoGoroutine(goroutineWait, leakedNow); left != nil {
			t.Fatalf("leaked goroutines = %q, want none", left)
		}
	})
}

func TestLeakedGoroutinesWaitsForAGoroutineThatIsEnding(t *testing.T) {
	started, release := make(chan struct{}), make(chan struct{})
	go parked(started, release)
	<-started
	looks := 0
	left := awaitNoGoroutine(goroutineWait, func() []string {
		left := leakedNow()
		looks++
		if looks == 1 {
			if len(left) != 1 || !strings.Contains(left[0], parkedFrame) {
				t.Errorf("first look = %q, want the parked goroutine", left)
			}
			close(release) // it ends after the first look
		}
		return left
	})
	if left != nil || looks < 2 {
		t.Fatalf("leaked goroutines = %q after %d looks, want none after at least 2", left, looks)
	}
}

var goroutineID = regexp.MustCompile(`^goroutine (\d+) `)

func TestLeakedInReportsOnlyTheTestsGoroutines(t *testing.T) {
	for _, tt := range []struct {
		file string
		want []string // goroutine numbers
	}{
		// runtime.Stack(buf, true) in a subtest, with -test.cpuprofile:
		// the caller (15), the runner (1, 8), the profile writer (7),
		// signal.Notify's loop (10); left by the test: a parked goroutine
		// (11), one 120 frames deep (12, frames elided) and an
		// os/exec copier (14).
		{"stack-test.txt", []string{"11", "12", "14"}},
		// A GOTRACEBACK=system dump: the caller (1), the runtime's own
		// goroutines, signal.Notify's loop, each with a runtime.goexit
		// frame.
		{"stack-system.txt", nil},
	} {
		t.Run(tt.file, func(t *testing.T) {
			b, err := os.ReadFile("testdata/" + tt.file)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, g := range leakedIn(b) {
				m := goroutineID.FindStringSubmatch(g)
				if m == nil {
					t.Fatalf("leakedIn returned %q, not a goroutine's dump", g)
				}
				got = append(got, m[1])
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("leakedIn(%s) = goroutines %v, want %v", tt.file, got, tt.want)
			}
		})
	}
}

func TestLeakedInJudgesAGoroutineWithoutFramesByItsCreator(t *testing.T) {
	const caller = "goroutine 1 [running]:\nmain.main()\n\t_testmain.go:46 +0x9b\n\n"
	for _, tt := range []struct {
		name, block string
		leaked      bool
	}{
		{"a test", "goroutine 7 [running]:\n\tgoroutine running on other thread; stack unavailable\ncreated by testing.(*T).Run in goroutine 1\n\t/go/src/testing/testing.go:2101 +0x4c5", false},
		{"the test's own", "goroutine 9 [running]:\n\tgoroutine running on other thread; stack unavailable\ncreated by example.com/p.TestX in goroutine 7\n\t/src/p/p_test.go:17 +0xa6", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := leakedIn([]byte(caller + tt.block + "\n"))
			if (len(got) == 1) != tt.leaked || len(got) > 1 {
				t.Errorf("leakedIn(%q) = %q, want leaked %v", tt.block, got, tt.leaked)
			}
		})
	}
}
