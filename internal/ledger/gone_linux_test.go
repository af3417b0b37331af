package ledger

import (
	"context"
	"fmt"
	"os"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/session-starter/session-starter/internal/mark"
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

// TestARecordWhoseStarterPIDIsALiveThreadIsTakenAsGone: a dead session's
// starter PID that now numbers a live thread, not a leader, names no
// process (pidfd_open answers EINVAL or ENOENT). The reclaim takes the
// starter as gone and reclaims the session, the thread left unnamed.
func TestARecordWhoseStarterPIDIsALiveThreadIsTakenAsGone(t *testing.T) {
	dir := private(t)
	t.Setenv(EnvDir, dir)
	tid := testproc.LiveThread(t)
	if gone, reused, err := Gone(tid, Token{Start: 1}); !gone || reused || err != nil {
		t.Fatalf("Gone(a live thread's TID %d) = %v, %v, %v; want true, false, nil", tid, gone, reused, err)
	}
	boot, err := BootID()
	if err != nil {
		t.Fatal(err)
	}
	id, err := mark.New()
	if err != nil {
		t.Fatal(err)
	}
	none := Process{PID: 1 << 22, Token: Token{Start: 1}} // above pid_max: no process
	r := Record{Version: Version, BootID: boot, Session: id.String(), UID: os.Getuid(), Mode: "group", Created: Now(),
		Starter: Process{PID: tid, Token: Token{Start: 1}}, Guard: none, Engine: none, PGID: none.PID, NS: here(t)}
	if err := write(t, dir, r); err != nil {
		t.Fatal(err)
	}
	rep, err := Reclaim(context.Background(), false)
	if err != nil || len(rep.Sessions) != 1 || rep.Sessions[0].Action != "reclaimed" {
		t.Fatalf("Reclaim = %+v, %v; want the session reclaimed", rep, err)
	}
	for _, l := range rep.Sessions[0].Left {
		// The mark's scan may report what it cannot verify (a process
		// whose environment is unreadable; the whole scan, where there
		// are no pidfds); the thread is nothing of the session's.
		if l.PID == tid || l.Survivor {
			t.Errorf("Reclaim left %+v; want nothing of the record's", l)
		}
	}
}
