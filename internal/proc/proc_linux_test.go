package proc

import (
	"bufio"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/session-starter/session-starter/internal/testproc"
)

// waitFor polls cond until it holds or testproc.TooLong has passed, and reports
// whether it held.
func waitFor(cond func() bool) bool {
	deadline := time.Now().Add(testproc.TooLong)
	for wait := time.Millisecond; ; wait = min(2*wait, 50*time.Millisecond) {
		if cond() {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(wait)
	}
}

// startGroup starts argv as the leader of a new process group and returns
// its PID, which is also the group number. The leader stays unreaped until
// reap is called, so the number stays pinned (a zombie keeps its group's number
// allocated); cleanup
// kills the group and reaps the leader if the test did not.
func startGroup(t *testing.T, stdout *os.File, argv ...string) (pid int, reap func() error) {
	t.Helper()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Stdout = stdout
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %v: %v", argv, err)
	}
	reaped := false
	reap = func() error {
		if reaped {
			return nil
		}
		reaped = true
		return cmd.Wait()
	}
	pid = cmd.Process.Pid
	t.Cleanup(func() {
		if !reaped {
			// SAFETY: pid is our unreaped child and leads its own group,
			// so -pid names that group and no other.
			_ = syscall.Kill(-pid, syscall.SIGKILL)
			_ = reap()
		}
	})
	return pid, reap
}

func TestReadStatOfSelf(t *testing.T) {
	st, err := ReadStat(os.Getpid())
	if err != nil {
		t.Fatalf("ReadStat(self) error = %v", err)
	}
	if st.PID != os.Getpid() || st.Pgrp != syscall.Getpgrp() || st.PPID != os.Getppid() {
		t.Fatalf("ReadStat(self) = %+v, want pid %d, ppid %d, pgrp %d", st, os.Getpid(), os.Getppid(), syscall.Getpgrp())
	}
	// The state is the main thread's, which may be asleep while this
	// goroutine runs on another thread.
	if st.NumThreads < 1 || !st.Live() {
		t.Fatalf("ReadStat(self) = %+v, want a live process", st)
	}
}

func TestReadStatOfAMissingPIDIsNotExist(t *testing.T) {
	// No process can have a PID of pid_max or more.
	b, err := os.ReadFile("/proc/sys/kernel/pid_max")
	if err != nil {
		t.Fatal(err)
	}
	pidMax, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	st, err := ReadStat(pidMax)
	if !errors.Is(err, os.ErrNotExist) || st != (Stat{}) {
		t.Fatalf("ReadStat(pid_max) = %+v, %v; want zero Stat, os.ErrNotExist", st, err)
	}
	if uid := UID(pidMax); uid != -1 {
		t.Fatalf("UID(pid_max) = %d, want -1", uid)
	}
}

func TestUIDOfSelfIsTheRealUID(t *testing.T) {
	if got := UID(os.Getpid()); got != os.Getuid() {
		t.Fatalf("UID(self) = %d, want %d", got, os.Getuid())
	}
}

func TestLiveMembersFindsEveryLiveMemberAndNoneAfterTheKill(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	pgid, reap := startGroup(t, w, "/bin/sh", "-c", "sleep 60 & sleep 60 & echo ready; wait")
	w.Close()
	// Both forks have returned once the shell prints: from then on the
	// group has three members, though the children may not have exec'd yet.
	if line, err := bufio.NewReader(r).ReadString('\n'); err != nil || line != "ready\n" {
		t.Fatalf("read from leader = %q, %v; want %q", line, err, "ready\n")
	}
	names := func(ms []Stat) []string {
		var out []string
		for _, m := range ms {
			out = append(out, m.Comm)
		}
		sort.Strings(out)
		return out
	}
	want := []string{"sh", "sleep", "sleep"}
	var got []Stat
	if !waitFor(func() bool {
		got, err = LiveMembers(pgid)
		return err == nil && slices.Equal(names(got), want)
	}) {
		t.Fatalf("LiveMembers(%d) = %v, %v; want members %v", pgid, names(got), err, want)
	}
	for _, m := range got {
		if m.Pgrp != pgid || !m.Live() {
			t.Errorf("LiveMembers(%d) gave %+v, want a live member of group %d", pgid, m, pgid)
		}
		if m.Comm == "sleep" && m.PPID != pgid {
			t.Errorf("LiveMembers(%d) gave sleep %+v, want a child of the leader %d", pgid, m, pgid)
		}
	}

	// SAFETY: pgid is our unreaped child and leads its own group.
	if err := syscall.Kill(-pgid, syscall.SIGKILL); err != nil {
		t.Fatalf("kill(-%d, SIGKILL) = %v", pgid, err)
	}
	if err := reap(); err == nil {
		t.Fatalf("leader exited cleanly, want death by SIGKILL")
	}
	// The sleeps, now orphans, may still be exiting; once they are zombies
	// (or reaped by PID 1) none of them is live.
	if !waitFor(func() bool {
		got, err = LiveMembers(pgid)
		return err == nil && len(got) == 0
	}) {
		t.Fatalf("LiveMembers(%d) after the kill = %v, %v; want none", pgid, names(got), err)
	}
}

func TestLiveMembersLeavesOutAZombie(t *testing.T) {
	pid, reap := startGroup(t, nil, "/bin/true")
	// Wait for the exit without reaping: the child stays a zombie.
	var info unix.Siginfo
	for {
		err := unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			t.Fatalf("waitid(%d, WNOWAIT) = %v", pid, err)
		}
		break
	}
	st, err := ReadStat(pid)
	if err != nil || st.State != 'Z' || st.Pgrp != pid {
		t.Fatalf("ReadStat(zombie %d) = %+v, %v; want state Z in group %d", pid, st, err, pid)
	}
	got, err := LiveMembers(pid)
	if err != nil || len(got) != 0 {
		t.Fatalf("LiveMembers(%d) with only a zombie = %+v, %v; want none", pid, got, err)
	}
	if err := reap(); err != nil {
		t.Fatalf("reap: %v", err)
	}
}

func TestOpenFDsListsAnOpenFDAndNotAClosedOne(t *testing.T) {
	open, err := os.Open("/dev/null")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { open.Close() })
	closed, err := os.Open("/dev/null")
	if err != nil {
		t.Fatal(err)
	}
	openFD, closedFD := int(open.Fd()), int(closed.Fd())
	closed.Close()
	// OpenFDs' own directory descriptor likely takes closedFD's number:
	// it must be left out too.
	fds, err := OpenFDs()
	if err != nil {
		t.Fatalf("OpenFDs() error = %v", err)
	}
	if !slices.Contains(fds, openFD) {
		t.Errorf("OpenFDs() = %v, want it to hold open fd %d", fds, openFD)
	}
	if slices.Contains(fds, closedFD) {
		t.Errorf("OpenFDs() = %v, want it without closed fd %d", fds, closedFD)
	}
	if !slices.IsSorted(fds) || !slices.Contains(fds, 0) {
		t.Errorf("OpenFDs() = %v, want an ascending list holding fd 0", fds)
	}
}

func TestSameNamespaceHoldsHere(t *testing.T) {
	if err := SameNamespace(); err != nil {
		t.Fatalf("SameNamespace() = %v, want nil", err)
	}
}

func TestParseUIDReadsTheRealUID(t *testing.T) {
	tests := []struct {
		name   string
		status string
		want   int
	}{
		{"captured root", mustRead(t, "status-sleep.txt"), 0},
		{"captured nobody", mustRead(t, "status-nobody.txt"), 65534},
		{"real differs from effective", "Name:\tx\nUid:\t1000\t0\t0\t0\n", 1000},
		{"name that looks like a Uid line", "Name:\tUid: 7\nUid:\t42\t42\t42\t42\n", 42},
		{"no Uid line", "Name:\tx\nGid:\t0\t0\t0\t0\n", -1},
		{"empty Uid line", "Uid:\n", -1},
		{"Uid not a number", "Uid:\tabc\t0\t0\t0\n", -1},
		{"empty", "", -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := parseUID([]byte(tt.status)); got != tt.want {
				t.Fatalf("parseUID(%q) = %d, want %d", tt.status, got, tt.want)
			}
		})
	}
}

func mustRead(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestChildrenReadsAListLongerThanOneBuffer: with 1,000 children the
// children file is several buffers long; every child is listed, and no
// number that is not a child — the tail of one cut at a buffer's end —
// is.
func TestChildrenReadsAListLongerThanOneBuffer(t *testing.T) {
	const n = 1000
	ours := map[int]bool{}
	var cmds []*exec.Cmd
	t.Cleanup(func() {
		for _, c := range cmds {
			_ = c.Process.Kill() // our unreaped children: the PIDs are theirs
			_ = c.Wait()
		}
	})
	for range n {
		c := exec.Command("/bin/sleep", "600")
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, c)
		ours[c.Process.Pid] = true
	}
	got, err := Children(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	length := 0
	seen := map[int]bool{}
	for _, pid := range got {
		length += len(strconv.Itoa(pid)) + 1
		seen[pid] = true
		if !ours[pid] {
			if st, err := ReadStat(pid); err != nil || st.PPID != os.Getpid() {
				t.Errorf("Children lists %d, which is no child of this process (%+v, %v)", pid, st, err)
			}
		}
	}
	if length <= 4096 {
		t.Fatalf("the children list is %d bytes: the test needs more than one 4096-byte buffer", length)
	}
	for pid := range ours {
		if !seen[pid] {
			t.Errorf("child %d is not listed (%d of %d listed)", pid, len(got), n)
		}
	}
}
