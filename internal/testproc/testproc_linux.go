package testproc

import (
	"os"
	"runtime"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// Child is a started process the test owns.
type Child struct {
	PID   int
	Pidfd int
}

// StartLeader starts argv as the leader of a new process group, its
// stdout connected to out, and registers a cleanup that kills the group
// (pinned by the unreaped leader) and reaps the leader.
func StartLeader(t testing.TB, out *os.File, argv ...string) *Child {
	t.Helper()
	pidfd := -1
	pid, err := syscall.ForkExec(argv[0], argv, &syscall.ProcAttr{
		Env:   os.Environ(),
		Files: []uintptr{0, out.Fd(), 2},
		Sys:   &syscall.SysProcAttr{Setpgid: true, PidFD: &pidfd},
	})
	if err != nil {
		t.Fatalf("start %v: %v", argv, err)
	}
	c := &Child{PID: pid, Pidfd: pidfd}
	t.Cleanup(func() {
		_ = c.KillGroup()
		c.Wait(t)
		unix.Close(pidfd)
	})
	return c
}

// KillGroup SIGKILLs the group the child leads, through its pidfd, or
// before Linux 6.9, which cannot signal a group through a pidfd, by its
// number. Call it only while the child is unreaped: its zombie keeps the
// group number the test's.
func (c *Child) KillGroup() error {
	err := unix.PidfdSendSignal(c.Pidfd, unix.SIGKILL, nil, unix.PIDFD_SIGNAL_PROCESS_GROUP)
	if err == unix.EINVAL {
		err = unix.Kill(-c.PID, unix.SIGKILL)
	}
	return err
}

// Wait reaps the child, waiting at most TooLong, and returns its status;
// it returns a zero status if the child was reaped already.
func (c *Child) Wait(t testing.TB) syscall.WaitStatus {
	t.Helper()
	if !c.Exited(TooLong) {
		t.Fatalf("pid %d still running after %v", c.PID, TooLong)
	}
	var ws syscall.WaitStatus
	_, _ = syscall.Wait4(c.PID, &ws, syscall.WNOHANG, nil)
	return ws
}

// Exited waits up to d for the child to exit (without reaping it).
func (c *Child) Exited(d time.Duration) bool {
	fds := []unix.PollFd{{Fd: int32(c.Pidfd), Events: unix.POLLIN}}
	deadline := time.Now().Add(d)
	for {
		n, err := unix.Poll(fds, int(max(time.Until(deadline), 0)/time.Millisecond))
		if err == unix.EINTR {
			continue
		}
		return err == nil && n > 0
	}
}

// LiveThread returns the TID of a live thread of this process that is not
// its leader; it lives until the test ends.
func LiveThread(t testing.TB) int {
	t.Helper()
	done := make(chan struct{})
	t.Cleanup(func() { close(done) })
	tids := make(chan int)
	for range 2 {
		go func() {
			// Never unlocked: the thread ends with the goroutine.
			runtime.LockOSThread()
			tids <- unix.Gettid()
			<-done
		}()
		// The first may hold the leader; the second cannot then.
		if tid := <-tids; tid != os.Getpid() {
			return tid
		}
	}
	t.Fatal("no thread but the leader")
	return 0
}
