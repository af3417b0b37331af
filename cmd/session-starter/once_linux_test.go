package main

// The grace's stop signal reaches each live process once, however many
// holders hold it (the Engine itself, group E, the session cgroup).

import (
	"bytes"
	"fmt"
	"math/bits"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/session-starter/session-starter/internal/testproc"
)

// countedStop is the stop signal of the counting tests: a real-time
// signal, which the kernel queues once per sending (a standard signal
// sent again while pending is merged, so a count of those could not fail).
const countedStop = 40

func init() {
	testproc.Register("block-then-exec", blockThenExec)
	testproc.Register("count-stops", countStops)
}

// blockThenExec plays the launcher: it blocks countedStop on its thread
// and executes the product with its arguments, as the Engine role
// "count-stops" (the Engine inherits the blocked signal through the
// starter, which leaves the launcher's mask to it).
func blockThenExec(args []string) int {
	runtime.LockOSThread() // the mask and the exec on one thread
	var set unix.Sigset_t
	set.Val[(countedStop-1)/bits.UintSize] |= 1 << ((countedStop - 1) % bits.UintSize) // words of the machine's size
	if err := unix.PthreadSigmask(unix.SIG_BLOCK, &set, nil); err != nil {
		fmt.Fprintln(os.Stderr, "block:", err)
		return 3
	}
	os.Setenv(testproc.HelperVar, "count-stops")
	err := syscall.Exec(os.Getenv("SESSION_STARTER_BIN"), append([]string{"session-starter"}, args...), os.Environ())
	fmt.Fprintln(os.Stderr, "exec:", err)
	return 3
}

// countStops is an Engine with a child in its group (so in group E and
// in the session cgroup). It reads countedStop, which it has blocked,
// through a signalfd: each sending is one record. Once the first has come
// and then SIGCONT — which the end sends after the stop signal has gone to
// every holder — it counts what is queued and says "stops N"; then it
// waits to be killed.
func countStops([]string) int {
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		fmt.Println(err)
		return 3
	}
	if !blockedIn(status, countedStop) {
		fmt.Printf("signal %d is not blocked: %q\n", countedStop, status)
		return 3
	}
	var set unix.Sigset_t
	set.Val[(countedStop-1)/bits.UintSize] |= 1 << ((countedStop - 1) % bits.UintSize) // words of the machine's size
	fd, err := unix.Signalfd(-1, &set, unix.SFD_CLOEXEC)
	if err != nil {
		fmt.Println("signalfd:", err)
		return 3
	}
	cont := make(chan os.Signal, 1)
	signal.Notify(cont, syscall.SIGCONT)
	member := exec.Command("sleep", "600")
	if err := member.Start(); err != nil {
		fmt.Println(err)
		return 3
	}
	fmt.Println("ready")
	const size = 128 // sizeof(struct signalfd_siginfo), fixed by the kernel ABI
	buf := make([]byte, 64*size)
	if _, err := unix.Read(fd, buf[:size]); err != nil {
		fmt.Println("read:", err)
		return 3
	}
	select {
	case <-cont:
	case <-time.After(testproc.TooLong):
		fmt.Println("no SIGCONT")
		return 3
	}
	if err := unix.SetNonblock(fd, true); err != nil {
		fmt.Println(err)
		return 3
	}
	n := 1
	for {
		m, err := unix.Read(fd, buf)
		if err != nil || m <= 0 {
			break
		}
		n += m / size
	}
	fmt.Printf("stops %d\n", n)
	time.Sleep(testproc.TooLong) // the end kills it long before
	return 0
}

// blockedIn reports whether the SigBlk line of a /proc/PID/status has sig.
func blockedIn(status []byte, sig int) bool {
	for line := range bytes.SplitSeq(status, []byte("\n")) {
		if hex, ok := bytes.CutPrefix(line, []byte("SigBlk:")); ok {
			mask, err := strconv.ParseUint(strings.TrimSpace(string(hex)), 16, 64)
			return err == nil && mask&(1<<(sig-1)) != 0
		}
	}
	return false
}

// TestTheEngineGetsTheGracesStopSignalOnce: the Engine is held three times
// over (itself, as a member of group E, as a member of the session
// cgroup), and gets the stop signal once; the SIGKILL rounds alone may
// repeat.
func TestTheEngineGetsTheGracesStopSignalOnce(t *testing.T) {
	modes(t, func(t *testing.T, mode string) {
		mark := newMark(t)
		exe, err := os.Executable()
		if err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(exe, "--containment", mode, "--ack", "--grace", "10m", "--stop-signal", strconv.Itoa(countedStop), "--", exe)
		cmd.Env = append(os.Environ(), testproc.HelperEnv(t, "block-then-exec"), markVar+"="+mark, "SESSION_STARTER_BIN="+binary, "GORACE=atexit_sleep_ms=0")
		s := startCmd(t, mark, cmd)
		if _, got := s.ackMode(); got != mode {
			t.Fatalf("ack mode = %q, want %q", got, mode)
		}
		testproc.HelperEnv(t, "count-stops")
		if l := s.line(); l != "ready" {
			t.Fatalf("the Engine said %q, want ready; stderr: %s", l, s.stderr)
		}
		s.signal(syscall.SIGTERM)
		if l := s.line(); l != "stops 1" {
			t.Fatalf("the Engine said %q, want stops 1; stderr: %s", l, s.stderr)
		}
		s.signal(syscall.SIGTERM) // a second stop signal ends the grace
		wantSignal(t, s.wait(), syscall.SIGKILL, s.stderr)
		noSurvivors(t, mark)
	})
}
