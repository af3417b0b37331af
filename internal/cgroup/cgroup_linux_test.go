package cgroup

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path"
	"strconv"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/session-starter/session-starter/internal/proc"
)

// tooLong bounds every wait of these tests; a SIGKILLed sleep exits in
// milliseconds, a loaded shared machine can stretch that a hundredfold.
const tooLong = 30 * time.Second

// testPlace makes a cgroup of this test below this process's own and
// returns a Place whose Dir is it, so that Create and CleanLeftovers work
// only there. Cleanup kills what is left in it and removes it.
func testPlace(t *testing.T) Place {
	t.Helper()
	p, err := Locate()
	if err != nil {
		t.Skipf("no writable cgroup2 hierarchy: %v", err)
	}
	name := fmt.Sprintf("cgtest-%d-%d", os.Getpid(), rand.Uint32())
	if err := os.Mkdir(path.Join(p.Dir, name), 0o755); err != nil {
		t.Skipf("cannot make a cgroup in %s: %v", p.Dir, err)
	}
	dir := path.Join(p.Dir, name)
	t.Cleanup(func() {
		// Only this test's cgroup, and what is below it.
		if fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY, 0); err == nil {
			_ = Kill(fd)
			_, _ = WaitEmpty(fd, tooLong, -1)
			unix.Close(fd)
		}
		parent, err := unix.Open(p.Dir, unix.O_RDONLY|unix.O_DIRECTORY, 0)
		if err == nil {
			if err := Remove(parent, name); err != nil {
				t.Errorf("remove %s: %v", dir, err)
			}
			unix.Close(parent)
		}
	})
	return Place{Mount: p.Mount, Own: path.Join(p.Own, name), Dir: dir}
}

// sleeper starts a sleep in cgroup dir (moved in through cgroup.procs)
// and reaps it at cleanup.
func sleeper(t *testing.T, dir string, setsid bool) *exec.Cmd {
	t.Helper()
	cmd := exec.Command("sleep", "600")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: setsid}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	if err := os.WriteFile(path.Join(dir, "cgroup.procs"), []byte(strconv.Itoa(cmd.Process.Pid)), 0); err != nil {
		t.Fatal(err)
	}
	return cmd
}

func TestKillEmptiesTheCgroupAndRemoveDeletesIt(t *testing.T) {
	p := testPlace(t)
	s, err := Create(p)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	dir := path.Join(p.Dir, s.Name)
	a, b := sleeper(t, dir, false), sleeper(t, dir, true)
	if in, err := s.Contains(a.Process.Pid); err != nil || !in {
		t.Fatalf("Contains(%d) = %v, %v; want true", a.Process.Pid, in, err)
	}
	if pop, err := Populated(s.DirFD); err != nil || !pop {
		t.Fatalf("Populated() = %v, %v; want true", pop, err)
	}
	if err := Remove(s.ParentFD, s.Name); err == nil {
		t.Fatal("Remove() of a populated cgroup succeeded")
	}
	if err := Kill(s.DirFD); err != nil {
		t.Fatal(err)
	}
	if empty, err := WaitEmpty(s.DirFD, tooLong, -1); err != nil || !empty {
		t.Fatalf("WaitEmpty() = %v, %v; want true", empty, err)
	}
	for _, c := range []*exec.Cmd{a, b} {
		if err := c.Wait(); err == nil || c.ProcessState.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
			t.Errorf("sleep %d ended with %v, want SIGKILL", c.Process.Pid, err)
		}
	}
	if err := s.Remove(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("stat %s after Remove: %v, want not exist", dir, err)
	}
}

func TestRemoveTakesEmptyNestedCgroupsAlong(t *testing.T) {
	p := testPlace(t)
	s, err := Create(p)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := os.MkdirAll(path.Join(p.Dir, s.Name, "inner", "deeper"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := s.Remove(); err != nil {
		t.Fatal(err)
	}
}

func TestSignalReachesMembersOnly(t *testing.T) {
	p := testPlace(t)
	s, err := Create(p)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	in := sleeper(t, path.Join(p.Dir, s.Name), true)
	out := exec.Command("sleep", "600") // stays in this test's cgroup
	if err := out.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = out.Process.Kill(); _ = out.Wait() }()
	n, err := s.Signal(syscall.SIGTERM)
	if err != nil || n != 1 {
		t.Fatalf("Signal(TERM) = %d, %v; want 1, nil", n, err)
	}
	if err := in.Wait(); err == nil || in.ProcessState.Sys().(syscall.WaitStatus).Signal() != syscall.SIGTERM {
		t.Fatalf("member ended with %v, want SIGTERM", err)
	}
	if err := out.Process.Signal(syscall.Signal(0)); err != nil {
		t.Fatalf("the process outside the cgroup: %v, want it alive", err)
	}
	if empty, err := WaitEmpty(s.DirFD, tooLong, -1); err != nil || !empty {
		t.Fatalf("WaitEmpty() = %v, %v; want true", empty, err)
	}
}

func TestWaitEmptyEndsWhenWoken(t *testing.T) {
	p := testPlace(t)
	s, err := Create(p)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	sleeper(t, path.Join(p.Dir, s.Name), false)
	var fds [2]int
	if err := unix.Pipe2(fds[:], unix.O_CLOEXEC); err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fds[0])
	defer unix.Close(fds[1])
	if _, err := unix.Write(fds[1], []byte{0}); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if empty, err := WaitEmpty(s.DirFD, tooLong, fds[0]); err != nil || empty {
		t.Fatalf("WaitEmpty() = %v, %v; want false, nil", empty, err)
	}
	if d := time.Since(start); d > tooLong/2 {
		t.Fatalf("WaitEmpty() took %v with its wake descriptor readable", d)
	}
	if empty, err := WaitEmpty(s.DirFD, 10*time.Millisecond, -1); err != nil || empty {
		t.Fatalf("WaitEmpty(10ms) = %v, %v; want false, nil (populated)", empty, err)
	}
}

// TestCleanLeftoversRemovesOnlyEmptyCgroupsOfDeadStarters: a leftover of a
// dead starter that is empty goes; one that still holds a process stays,
// and so does an empty one of a live starter.
func TestCleanLeftoversRemovesOnlyEmptyCgroupsOfDeadStarters(t *testing.T) {
	p := testPlace(t)
	st, err := proc.ReadStat(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	dead := Name(os.Getpid(), st.StartTime+1, 1) // no process has this start time
	deadBusy := Name(os.Getpid(), st.StartTime+1, 2)
	live := Name(os.Getpid(), st.StartTime, 1<<40)
	// Its starter runs in another PID namespace, where the name's PID
	// means nothing here; its flock tells that it lives.
	deadLocked := Name(os.Getpid(), st.StartTime+1, 3)
	other := "not-a-session"
	for _, n := range []string{dead, deadBusy, live, other, deadLocked} {
		if err := os.Mkdir(path.Join(p.Dir, n), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	sleeper(t, path.Join(p.Dir, deadBusy), false)
	lock, err := unix.Open(path.Join(p.Dir, deadLocked), unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(lock)
	if err := unix.Flock(lock, unix.LOCK_EX|unix.LOCK_NB); err != nil {
		t.Fatal(err)
	}
	removed, err := CleanLeftovers(p)
	if err != nil {
		t.Fatal(err)
	}
	if len(removed) != 1 || removed[0] != dead {
		t.Fatalf("CleanLeftovers() removed %v, want only %s", removed, dead)
	}
	for _, n := range []string{deadBusy, live, other, deadLocked} {
		if _, err := os.Stat(path.Join(p.Dir, n)); err != nil {
			t.Errorf("%s: %v, want it kept", n, err)
		}
	}
}
