//go:build darwin || freebsd || linux

package sys_test

// What each kernel does with a zombie, as the doc comments of WatchExit
// and KillGroup say: on Linux (also in the portable build) these run on
// the project's machine; on macOS and FreeBSD in the workflow only.

import (
	"errors"
	"os/exec"
	"runtime"
	"syscall"
	"testing"

	"github.com/session-starter/session-starter/internal/proc"
	"github.com/session-starter/session-starter/internal/sys"
	"github.com/session-starter/session-starter/internal/testproc"
)

// zombieLeader starts /usr/bin/true as the leader of a group of its own
// and waits until it is a zombie: this test's unreaped child, the group's
// only member, its PID and group number still allocated. Cleanup reaps
// it.
func zombieLeader(t *testing.T) int {
	t.Helper()
	cmd := exec.Command("/usr/bin/true")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Wait() })
	pid := cmd.Process.Pid
	testproc.Eventually(t, "the child to be a zombie", func() bool {
		st, err := proc.ReadStat(pid)
		if err != nil {
			t.Fatalf("ReadStat(%d) = %v", pid, err)
		}
		return st.State == 'Z'
	})
	return pid
}

// TestWatchingAZombieIsGoneOnMacOSAndReadyAtOnceElsewhere: macOS refuses
// the NOTE_EXIT filter of a zombie (ESRCH); FreeBSD registers it and it
// fires at once, as Linux's pidfd of a zombie is readable at once.
func TestWatchingAZombieIsGoneOnMacOSAndReadyAtOnceElsewhere(t *testing.T) {
	pid := zombieLeader(t)
	fd, err := sys.WatchExit(pid)
	if runtime.GOOS == "darwin" {
		if !errors.Is(err, sys.ErrGone) {
			t.Fatalf("WatchExit(zombie) = %d, %v; want ErrGone", fd, err)
		}
		return
	}
	if err != nil {
		t.Fatalf("WatchExit(zombie) = %v, want a descriptor", err)
	}
	defer sys.Close(fd)
	fds := []sys.PollFd{{Fd: int32(fd), Events: sys.POLLIN}}
	if n, err := sys.Poll(fds, 0); err != nil || n != 1 {
		t.Fatalf("poll(WatchExit(zombie), 0) = %d, %v; want it ready at once", n, err)
	}
}

// TestSignallingAGroupOfZombiesOnly: on Linux and FreeBSD the zombie is
// a member the signal reaches (kill succeeds); macOS skips zombies and
// answers EPERM, not ESRCH, while the zombie pins the number.
func TestSignallingAGroupOfZombiesOnly(t *testing.T) {
	pgid := zombieLeader(t)
	// SAFETY: pgid is this test's unreaped child, which pins the group.
	err := sys.KillGroup(pgid, 0)
	if runtime.GOOS == "darwin" {
		if !errors.Is(err, syscall.EPERM) {
			t.Fatalf("KillGroup(group of a zombie, 0) = %v, want EPERM", err)
		}
		return
	}
	if err != nil {
		t.Fatalf("KillGroup(group of a zombie, 0) = %v, want nil", err)
	}
}
