package ledger

import (
	"fmt"
	"os"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/session-starter/session-starter/internal/testproc"
)

func init() {
	// gone-emfile PID FREE TOKEN: with all but FREE descriptors taken,
	// asks Gone about the live process PID, by its whole token ("pidfs")
	// or by its start alone ("start", as where there is no pidfs), and
	// prints "gone=BOOL err=ERR".
	testproc.Register("gone-emfile", func(args []string) int {
		var pid, free int
		fmt.Sscan(args[0], &pid)
		fmt.Sscan(args[1], &free)
		tok, err := TokenOf(pid)
		if err != nil {
			fmt.Println("token:", err)
			return 1
		}
		if args[2] == "start" {
			tok.Pidfs = 0
		}
		// The runtime's poller opens its descriptors at the first file
		// opened: before the table is filled.
		_, _ = os.ReadFile("/proc/self/stat")
		low := unix.Rlimit{Cur: 64, Max: 64}
		if err := unix.Setrlimit(unix.RLIMIT_NOFILE, &low); err != nil {
			fmt.Println("setrlimit:", err)
			return 1
		}
		var held []int
		for {
			fd, err := unix.Open("/dev/null", unix.O_RDONLY|unix.O_CLOEXEC, 0)
			if err != nil {
				break
			}
			held = append(held, fd)
		}
		for range free {
			unix.Close(held[len(held)-1])
			held = held[:len(held)-1]
		}
		gone, _, err := Gone(pid, tok)
		for _, fd := range held {
			unix.Close(fd)
		}
		fmt.Printf("gone=%v err=%v\n", gone, err)
		return 0
	})
}

// TestGoneThatCannotBeToldIsNotGone: with no descriptor free, pidfd_open
// fails with EMFILE; with one free, pidfd_open takes it and the read of
// the start (the token without a pidfs inode) fails with EMFILE. Either
// way Gone says it cannot tell, never that the live process is gone, so
// that a reclaim leaves its session alone.
func TestGoneThatCannotBeToldIsNotGone(t *testing.T) {
	for _, c := range []struct{ free, token string }{{"0", "pidfs"}, {"1", "start"}} {
		cmd := testproc.HelperCommand(t, "gone-emfile", fmt.Sprint(os.Getpid()), c.free, c.token)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("helper: %v: %s", err, out)
		}
		got := strings.TrimSpace(string(out))
		if !strings.HasPrefix(got, "gone=false err=") || !strings.Contains(got, syscall.EMFILE.Error()) {
			t.Errorf("Gone of a live process with %s descriptor free, by its %s: %q, want gone=false and an error naming %q", c.free, c.token, got, syscall.EMFILE.Error())
		}
	}
	tok, err := TokenOf(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if gone, reused, err := Gone(os.Getpid(), tok); gone || reused || err != nil {
		t.Errorf("Gone(self) = %v, %v, %v; want false, false, nil", gone, reused, err)
	}
	if gone, reused, err := Gone(os.Getpid(), Token{Start: tok.Start + 1, Pidfs: tok.Pidfs + 1}); !gone || !reused || err != nil {
		t.Errorf("Gone(self, another token) = %v, %v, %v; want true, true, nil: the PID is another process's", gone, reused, err)
	}
}
