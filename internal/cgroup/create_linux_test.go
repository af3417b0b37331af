package cgroup

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// emfileVar, in the environment of a run of this test binary, makes
// TestCreateUnderTooFewDescriptorsNamesTheErrorAndLeavesNoCgroup the child
// that calls Create with only that many descriptors free, in the place
// given after it ("free dir own mount").
const emfileVar = "SESSION_STARTER_TEST_CGROUP_EMFILE"

// TestCreateUnderTooFewDescriptorsNamesTheErrorAndLeavesNoCgroup: with one
// or two descriptors free, Create fails on EMFILE at the cgroup's
// directory or at its cgroup.events, says so (not that each name was
// taken), and removes the cgroup it made. The limit is lowered in a child
// process: it is the process's.
func TestCreateUnderTooFewDescriptorsNamesTheErrorAndLeavesNoCgroup(t *testing.T) {
	if spec := os.Getenv(emfileVar); spec != "" {
		emfileChild(spec)
		return
	}
	p := testPlace(t)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, free := range []int{1, 2} {
		t.Run(strconv.Itoa(free)+" free", func(t *testing.T) {
			cmd := exec.Command(exe, "-test.run=^TestCreateUnderTooFewDescriptorsNamesTheErrorAndLeavesNoCgroup$")
			cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%d %s %s", emfileVar, free, p.Dir, p.Own), "GORACE=atexit_sleep_ms=0")
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("child: %v; stdout: %s", err, out)
			}
			got := string(out)
			t.Logf("%s", got)
			if !strings.Contains(got, "create: ") || !strings.Contains(got, syscall.EMFILE.Error()) || strings.Contains(got, "taken") {
				t.Fatalf("Create under %d free descriptors said %q, want an error naming %q", free, got, syscall.EMFILE.Error())
			}
			entries, err := os.ReadDir(p.Dir)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range entries {
				if _, _, _, ok := ParseName(e.Name()); ok && e.IsDir() {
					t.Errorf("session cgroup %s left behind after %q", e.Name(), got)
				}
			}
		})
	}
}

// emfileChild fills the descriptor table to all but free descriptors
// under a soft limit of 64, calls Create, and prints its error as
// "create: ERR" (or "create: ok").
func emfileChild(spec string) {
	f := strings.Fields(spec)
	free, _ := strconv.Atoi(f[0])
	place := Place{Dir: f[1], Own: f[2]}
	// The runtime's poller opens its descriptors at the first file
	// opened: before the table is filled, not inside Create.
	_, _ = os.ReadFile("/proc/self/stat")
	var lim unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_NOFILE, &lim); err != nil {
		fmt.Println("getrlimit:", err)
		return
	}
	low := lim
	low.Cur = 64
	if err := unix.Setrlimit(unix.RLIMIT_NOFILE, &low); err != nil {
		fmt.Println("setrlimit:", err)
		return
	}
	var fill []int
	for len(fill) < 64 {
		fd, err := unix.Open("/dev/null", unix.O_RDONLY|unix.O_CLOEXEC, 0)
		if errors.Is(err, unix.EMFILE) {
			break
		}
		if err != nil {
			fmt.Println("open:", err)
			return
		}
		fill = append(fill, fd)
	}
	for _, fd := range fill[len(fill)-free:] {
		unix.Close(fd)
	}
	fill = fill[:len(fill)-free]
	s, err := Create(place)
	for _, fd := range fill {
		unix.Close(fd)
	}
	_ = unix.Setrlimit(unix.RLIMIT_NOFILE, &lim)
	if err != nil {
		fmt.Println("create:", err)
		return
	}
	fmt.Println("create: ok")
	_ = s.Remove()
	s.Close()
}

// threadedPlace makes, in the test's cgroup, a cgroup "t" with a threaded
// child "c", and returns the place c is: a cgroup made in it comes out
// "domain invalid".
func threadedPlace(t *testing.T) Place {
	t.Helper()
	p := testPlace(t)
	c := path.Join(p.Dir, "t", "c")
	if err := os.MkdirAll(c, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path.Join(c, "cgroup.type"), []byte("threaded"), 0); err != nil {
		t.Skipf("cannot make a threaded cgroup: %v", err)
	}
	return Place{Dir: c, Own: path.Join(p.Own, "t", "c")}
}

// TestCreateInAThreadedSubtreeSaysSoAndLeavesNoCgroup: a cgroup made below
// a threaded one is "domain invalid" and could not be joined (EOPNOTSUPP);
// Create removes it and returns ErrNotDomain, naming the types.
func TestCreateInAThreadedSubtreeSaysSoAndLeavesNoCgroup(t *testing.T) {
	p := threadedPlace(t)
	s, err := Create(p)
	if err == nil {
		s.Close()
		t.Fatalf("Create(%s) made %s, want ErrNotDomain", p.Dir, s.Path)
	}
	if !errors.Is(err, ErrNotDomain) || !strings.Contains(err.Error(), `"domain invalid"`) || !strings.Contains(err.Error(), `"threaded"`) {
		t.Fatalf("Create(%s) = %v, want ErrNotDomain naming domain invalid and threaded", p.Dir, err)
	}
	entries, err := os.ReadDir(p.Dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if _, _, _, ok := ParseName(e.Name()); ok {
			t.Errorf("session cgroup %s left behind", e.Name())
		}
	}
}

// TestANameWhoseCgroupIsLockedIsTakenAndLeavesNoDescriptor: lockNew finds
// a fresh cgroup locked by another descriptor (a cleaner's, or another
// session's) taken, and closes the descriptor it opened: none of this
// process names the cgroup but the locker's.
func TestANameWhoseCgroupIsLockedIsTakenAndLeavesNoDescriptor(t *testing.T) {
	p := testPlace(t)
	parent, err := unix.Open(p.Dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(parent)
	if err := unix.Mkdirat(parent, "locked", 0o755); err != nil {
		t.Fatal(err)
	}
	locker, err := unix.Openat(parent, "locked", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(locker)
	if err := unix.Flock(locker, unix.LOCK_EX|unix.LOCK_NB); err != nil {
		t.Fatal(err)
	}
	if fd, _, err := lockNew(parent, "locked"); !errors.Is(err, errTaken) || fd != -1 {
		t.Fatalf("lockNew of a locked cgroup = %d, %v; want -1, errTaken", fd, err)
	}
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		fd, _ := strconv.Atoi(e.Name())
		if to, _ := os.Readlink("/proc/self/fd/" + e.Name()); to == path.Join(p.Dir, "locked") && fd != locker {
			t.Errorf("descriptor %d of %s left open by lockNew", fd, to)
		}
	}
}
