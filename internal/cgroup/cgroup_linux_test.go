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

	"github.com/session-starter/session-starter/internal/testproc"
)

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
			awaitEmpty(t, fd)
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
	a, b := sleeper(t, path.Join(dir, EngineLeaf), false), sleeper(t, path.Join(dir, EngineLeaf), true)
	if in, err := s.HoldsEngine(a.Process.Pid); err != nil || !in {
		t.Fatalf("HoldsEngine(%d) = %v, %v; want true", a.Process.Pid, in, err)
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
	awaitEmpty(t, s.DirFD)
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

// A session cgroup holds no process: its Engine is born in a leaf of it,
// so that it may enable controllers for the Engine's leaf and its calls'
// cgroups, which the "no internal processes" rule refuses a cgroup that
// holds processes — the memory controller with EBUSY.
func TestTheSessionCgroupHoldsNoProcessAndMayEnableControllersBelowIt(t *testing.T) {
	p := testPlace(t)
	s, err := Create(p)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	dir := path.Join(p.Dir, s.Name)
	engine := sleeper(t, path.Join(dir, EngineLeaf), false)
	if in, err := s.HoldsEngine(engine.Process.Pid); err != nil || !in {
		t.Fatalf("HoldsEngine(%d) = %v, %v; want true", engine.Process.Pid, in, err)
	}
	if pids, err := Procs(s.DirFD); err != nil || len(pids) != 0 {
		t.Fatalf("the session cgroup's own cgroup.procs: %v, %v; want none", pids, err)
	}
	if typ, err := cgroupType(s.EngineFD); err != nil || typ != "domain" {
		t.Fatalf("the Engine's leaf is %q (%v), want a domain", typ, err)
	}
	avail, err := readFile(s.DirFD, "cgroup.controllers")
	if err != nil {
		t.Fatal(err)
	}
	// Every controller the session cgroup has may be enabled below it
	// while the Engine runs (this host may have none: then there is
	// nothing to show but the empty cgroup.procs above).
	if cs := words(avail); len(cs) > 0 {
		if err := enableIn(s.DirFD, cs, "+"); err != nil {
			t.Fatalf("enable %v below the session cgroup with the Engine in its leaf: %v", cs, err)
		}
	}
	_ = Kill(s.DirFD)
	_ = engine.Wait()
	awaitEmpty(t, s.DirFD)
	if err := s.Remove(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("stat %s after Remove: %v, want not exist", dir, err)
	}
}

// The session a process is in is the parent of its leaf: the Engine's,
// or a call's; a process in any other cgroup is in no session.
func TestInSessionIsTheParentOfTheEnginesOrACallsLeaf(t *testing.T) {
	m := Mount{Point: "/sys/fs/cgroup", Root: "/"}
	session := Name(42, 7, 1)
	for _, tt := range []struct {
		own  string
		want string
	}{
		{"/user.slice/" + session + "/" + EngineLeaf, "/user.slice/" + session},
		{"/user.slice/" + session + "/call-42-3", "/user.slice/" + session},
		{"/user.slice/" + session, ""},
		{"/user.slice/engine", ""},
		{"/", ""},
	} {
		got, ok := sessionOf(Place{Mount: m, Own: tt.own, Dir: path.Join(m.Point, tt.own)})
		if ok != (tt.want != "") || (ok && (got.Own != tt.want || got.Dir != path.Join(m.Point, tt.want))) {
			t.Errorf("sessionOf(%s) = %+v, %v; want %q", tt.own, got, ok, tt.want)
		}
	}
}

// awaitEmpty waits, bounded, for "populated 0" in the cgroup dirfd names.
func awaitEmpty(t *testing.T, dirfd int) {
	t.Helper()
	deadline := time.Now().Add(testproc.TooLong)
	for {
		populated, err := Populated(dirfd)
		if err == nil && !populated {
			return
		}
		if time.Now().After(deadline) {
			t.Errorf("cgroup still populated after %v (%v)", testproc.TooLong, err)
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// The holder's stop signal reaches the processes of the session cgroup
// and of the cgroups below it, each through a pidfd whose cgroup it
// checked, and nothing outside.
func TestHolderSignalReachesTheCgroupAndTheCgroupsBelowItOnly(t *testing.T) {
	p := testPlace(t)
	s, err := Create(p)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	dir := path.Join(p.Dir, s.Name)
	sub := path.Join(dir, "sub", "deeper")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	in, below := sleeper(t, path.Join(dir, EngineLeaf), true), sleeper(t, sub, false)
	out := exec.Command("sleep", "600") // stays in this test's cgroup
	if err := out.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = out.Process.Kill(); _ = out.Wait() }()
	h, err := NewHolder(s.DirFD)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	if live, err := h.Live(); err != nil || len(live) != 2 {
		t.Fatalf("Live() = %+v, %v; want the two members", live, err)
	}
	if err := h.Signal(syscall.SIGTERM); errors.Is(err, ErrNoPidfdInfo) {
		t.Skipf("Signal(TERM): %v", err)
	} else if err != nil {
		t.Fatalf("Signal(TERM) = %v", err)
	}
	for _, c := range []*exec.Cmd{in, below} {
		if err := c.Wait(); err == nil || c.ProcessState.Sys().(syscall.WaitStatus).Signal() != syscall.SIGTERM {
			t.Errorf("member %d ended with %v, want SIGTERM", c.Process.Pid, err)
		}
	}
	if err := out.Process.Signal(syscall.Signal(0)); err != nil {
		t.Fatalf("the process outside the cgroup: %v, want it alive", err)
	}
	awaitEmpty(t, s.DirFD)
	if live, err := h.Live(); err != nil || len(live) != 0 {
		t.Fatalf("Live() after the members ended = %+v, %v; want empty", live, err)
	}
}

// SIGKILL through the holder is cgroup.kill: it reaches the cgroups below
// too, and poll on the holder's descriptor tells of "populated 0".
func TestHolderKillIsToldByPollWhenTheTreeIsEmpty(t *testing.T) {
	p := testPlace(t)
	s, err := Create(p)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	dir := path.Join(p.Dir, s.Name)
	if err := os.Mkdir(path.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	a, b := sleeper(t, path.Join(dir, EngineLeaf), false), sleeper(t, path.Join(dir, "sub"), true)
	h, err := NewHolder(s.DirFD)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	if err := h.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	fd, ev := h.Notify()
	deadline := time.Now().Add(testproc.TooLong)
	for {
		live, err := h.Live() // reads cgroup.events, which re-arms the poll
		if err == nil && len(live) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("Live() = %+v, %v after %v; want empty", live, err, testproc.TooLong)
		}
		if _, err := unix.Poll([]unix.PollFd{{Fd: int32(fd), Events: ev}}, int(testproc.TooLong/time.Millisecond)); err != nil && !errors.Is(err, unix.EINTR) {
			t.Fatal(err)
		}
	}
	for _, c := range []*exec.Cmd{a, b} {
		if err := c.Wait(); err == nil || c.ProcessState.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
			t.Errorf("sleep %d ended with %v, want SIGKILL", c.Process.Pid, err)
		}
	}
}
