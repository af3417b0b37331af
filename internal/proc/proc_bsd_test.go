//go:build darwin || freebsd

package proc

// The kernel's own kern.proc records, read on macOS and FreeBSD: a
// decoding that reads the wrong bytes shows here as a wrong PID, parent,
// command name or state of a process the test knows. These run on the
// workflow's macOS and FreeBSD machines only.

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/session-starter/session-starter/internal/testproc"
)

// commMax is how many bytes of the command name the record keeps:
// MAXCOMLEN (16) on macOS, COMMLEN (19) on FreeBSD.
func commMax() int {
	if runtime.GOOS == "darwin" {
		return 16
	}
	return 19
}

// child is a process this test started: its unreaped child, so its PID
// names it alone until the test waits for it.
func child(t *testing.T, setpgid bool, argv ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: setpgid}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
	})
	return cmd
}

// stateOf waits until the record of pid shows one of states, and returns
// it; any failure to read it fails the test.
func stateOf(t *testing.T, pid int, states string) Stat {
	t.Helper()
	var st Stat
	testproc.Eventually(t, fmt.Sprintf("pid %d in a state of %q", pid, states), func() bool {
		var err error
		st, err = ReadStat(pid)
		if err != nil {
			t.Fatalf("ReadStat(%d) = %v", pid, err)
		}
		return slices.Contains([]byte(states), st.State)
	})
	return st
}

func TestReadStatOfThisProcessDecodesItsRecord(t *testing.T) {
	st, err := ReadStat(os.Getpid())
	if err != nil {
		t.Fatalf("ReadStat(self) = %v", err)
	}
	comm := filepath.Base(os.Args[0])
	if len(comm) > commMax() {
		comm = comm[:commMax()]
	}
	if st.PID != os.Getpid() || st.PPID != os.Getppid() || st.Pgrp != syscall.Getpgrp() || st.Comm != comm {
		t.Fatalf("ReadStat(self) = %+v, want pid %d, ppid %d, pgrp %d, comm %q", st, os.Getpid(), os.Getppid(), syscall.Getpgrp(), comm)
	}
	// The state is running or asleep (on FreeBSD, a thread's), live.
	if (st.State != 'R' && st.State != 'S') || !st.Live() {
		t.Fatalf("ReadStat(self) state %c, want R or S, live", st.State)
	}
	// The start time is in microseconds since the epoch: this process
	// started moments ago.
	start := time.UnixMicro(int64(st.StartTime))
	if now := time.Now(); start.After(now.Add(time.Second)) || start.Before(now.Add(-time.Hour)) {
		t.Fatalf("ReadStat(self) start time %v, want within the hour before %v", start, now)
	}
}

func TestUIDOfThisProcessIsTheRealUID(t *testing.T) {
	if got := UID(os.Getpid()); got != os.Getuid() {
		t.Fatalf("UID(self) = %d, want %d", got, os.Getuid())
	}
}

// TestReadStatOfAStoppedChildThenOfItsZombie: SIGSTOP shows as T, and
// the SIGKILLed child, not yet reaped, as Z and not live.
func TestReadStatOfAStoppedChildThenOfItsZombie(t *testing.T) {
	c := child(t, true, "/bin/sleep", "600")
	pid := c.Process.Pid
	st := stateOf(t, pid, "RS")
	if st.Comm != "sleep" || st.PPID != os.Getpid() || st.Pgrp != pid {
		t.Fatalf("ReadStat(child) = %+v, want a sleep, child of %d, leading group %d", st, os.Getpid(), pid)
	}
	if err := c.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	stateOf(t, pid, "T")
	if err := c.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	st = stateOf(t, pid, "Z")
	if st.Live() || st.PID != pid {
		t.Fatalf("ReadStat(zombie) = %+v, want pid %d, not live", st, pid)
	}
	if ms, err := LiveMembers(pid); err != nil || len(ms) != 0 {
		t.Fatalf("LiveMembers(%d) with only a zombie = %+v, %v; want none", pid, ms, err)
	}
	if kids, err := Children(os.Getpid()); err != nil || !slices.Contains(kids, pid) {
		t.Fatalf("Children(self) = %v, %v; want the zombie %d among them", kids, err, pid)
	}
	_ = c.Wait()
}

func TestLiveMembersFindsTheMembersOfAGroup(t *testing.T) {
	cmd := exec.Command("/bin/sh", "-c", "sleep 60 & echo ready; wait")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pgid := cmd.Process.Pid
	t.Cleanup(func() {
		// Our unreaped child leads the group: -pgid names it alone.
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
		_ = cmd.Wait()
	})
	if l, err := bufio.NewReader(out).ReadString('\n'); err != nil || l != "ready\n" {
		t.Fatalf("read from the leader = %q, %v", l, err)
	}
	testproc.Eventually(t, "LiveMembers to show sh and sleep", func() bool {
		ms, err := LiveMembers(pgid)
		if err != nil {
			t.Fatalf("LiveMembers(%d) = %v", pgid, err)
		}
		var names []string
		for _, m := range ms {
			if m.Pgrp != pgid || !m.Live() {
				t.Fatalf("LiveMembers(%d) gave %+v", pgid, m)
			}
			names = append(names, m.Comm)
		}
		slices.Sort(names)
		return slices.Equal(names, []string{"sh", "sleep"})
	})
}

// TestReadStatOfAReapedChildIsNotExist: once reaped, its number has no
// record (unless reused meanwhile: then the record is another process's,
// with another start time).
func TestReadStatOfAReapedChildIsNotExist(t *testing.T) {
	c := child(t, false, "/bin/sleep", "600")
	pid := c.Process.Pid
	before := stateOf(t, pid, "RS")
	_ = c.Process.Kill()
	_ = c.Wait()
	st, err := ReadStat(pid)
	switch {
	case errors.Is(err, os.ErrNotExist):
	case err == nil && st.StartTime != before.StartTime:
		t.Skipf("pid %d was reused at once", pid)
	default:
		t.Fatalf("ReadStat(reaped %d) = %+v, %v; want os.ErrNotExist", pid, st, err)
	}
	if uid := UID(pid); uid != -1 {
		t.Fatalf("UID(reaped %d) = %d, want -1", pid, uid)
	}
}

func TestMain(m *testing.M) {
	testproc.RunHelper()
	os.Exit(testproc.CheckHelpersUsed(m.Run()))
}

func init() {
	// idle: wait for the end of input, whatever the arguments.
	testproc.Register("idle", func([]string) int {
		_, _ = io.Copy(io.Discard, os.Stdin)
		return 0
	})
}

// TestReadEnvironOfAChildIsItsEnvironmentNotItsArguments: a variable of the
// child's environment is read back; the same text given as an argument is
// not. The child is this test binary: macOS leaves the environment out of
// kern.procargs2 for a restricted process (a platform binary such as
// /bin/sleep may be one) unless it reads its own.
func TestReadEnvironOfAChildIsItsEnvironmentNotItsArguments(t *testing.T) {
	const inEnv, inArgv = "PROC_TEST_ENV=in-the-environment", "PROC_TEST_ARGV=in-argv"
	cmd := testproc.HelperCommand(t, "idle", inArgv)
	cmd.Env = append(cmd.Env, inEnv)
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		in.Close()
		_ = cmd.Wait()
	})
	var env []byte
	testproc.Eventually(t, "the child's environment readable", func() bool {
		var err error
		env, err = ReadEnviron(cmd.Process.Pid)
		return err == nil && slices.Contains(strings.Split(string(env), "\x00"), inEnv)
	})
	if strings.Contains(string(env), inArgv) {
		t.Fatalf("ReadEnviron(child) holds its argument %q", inArgv)
	}
}

func TestReadEnvironOfNoProcessIsNotExist(t *testing.T) {
	cmd := exec.Command("/usr/bin/true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadEnviron(cmd.Process.Pid); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("ReadEnviron(reaped child) = %v, want os.ErrNotExist", err)
	}
}

func TestAllListsThisProcessAndAChild(t *testing.T) {
	c := child(t, false, "/bin/sleep", "300")
	all, err := All()
	if err != nil {
		t.Fatal(err)
	}
	var self, kid bool
	for _, e := range all {
		switch e.PID {
		case os.Getpid():
			self = e.UID == os.Getuid() && e.PPID == os.Getppid()
		case c.Process.Pid:
			kid = e.UID == os.Getuid() && e.PPID == os.Getpid()
		}
	}
	if !self || !kid {
		t.Fatalf("All() of %d processes: this process found %v, its child %v (with uid and parent)", len(all), self, kid)
	}
}
