package main

// The raw guard under its user's process limit: the guard proper, a Go
// program, cannot make its threads there, so what the porch does alone
// must end the session.

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/session-starter/session-starter/internal/ledger"
	"github.com/session-starter/session-starter/internal/testproc"
)

// nprocUser is the unprivileged user the porch test runs its session as:
// a number of its own (no account needed), so that its processes are the
// test's alone and RLIMIT_NPROC counts nothing else.
const nprocUser = 64821

// setsidStormEngine starts one escapee in a session of its own and says
// "storming". Every escapee loops: it forks a child whenever the process
// limit lets it (the child calls setsid and loops the same), and creates
// the file FULL when a fork fails. Bounds: the limit bounds how many live
// at once; each lives at most 60 s (an alarm) and tries at most 6,000
// times, 10 ms apart.
const setsidStormEngine = `$| = 1; use POSIX (); my $full = shift;
sub storm { POSIX::setsid(); open(STDOUT, '>', '/dev/null'); open(STDERR, '>', '/dev/null'); alarm 60;
  for (1..6000) { my $p = fork;
    if (!defined $p) { if (open(my $f, '>', $full)) { close $f } }
    elsif ($p == 0) { storm(); exit 0 }
    select(undef, undef, undef, 0.01) } exit 0 }
my $p = fork; if (defined $p && $p == 0) { storm() }
alarm 60; print "storming\n"; sleep 60;`

// TestAStarterSIGKILLedAtItsUsersProcessLimitLeavesNoMarkedEscapee runs
// a group-mode session as an unprivileged user under RLIMIT_NPROC, whose
// Engine starts a setsid storm that takes every slot the limit leaves,
// and SIGKILLs the starter. The escapees are outside group E: only their
// mark ties them to the session. The guard proper's Go runtime cannot
// make its threads while they hold the slots, so the porch must sweep
// the marked itself. Every escapee must end within the kill budget.
func TestAStarterSIGKILLedAtItsUsersProcessLimitLeavesNoMarkedEscapee(t *testing.T) {
	if portable {
		t.Skip("the portable launcher is a Go program that needs threads before it executes the product")
	}
	needPerl(t)
	if os.Geteuid() != 0 {
		skipUnlessCI(t, "needs root to run the session as another user")
	}
	prlimit, err := exec.LookPath("prlimit")
	if err != nil {
		skipUnlessCI(t, "prlimit (util-linux) is not installed")
	}
	// A run before this one may leave zombies of the user's for init to
	// reap: they count towards the limit until then.
	for deadline := time.Now().Add(10 * time.Second); processesOf(nprocUser) > 0; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Skipf("uid %d has %d processes on this machine; RLIMIT_NPROC counts them too", nprocUser, processesOf(nprocUser))
		}
	}
	const budget = 5 * time.Second
	mark := newMark(t)
	// Registered after newMark's: runs first, and ends the storm, which
	// forks again into every slot a kill frees, by its user and mark.
	t.Cleanup(func() { endUsersMarked(t, nprocUser, mark) })

	dir, err := os.MkdirTemp("", "session-starter-porch-nproc-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	bin := filepath.Join(dir, "session-starter")
	copyFile(t, binary, bin)
	work := filepath.Join(dir, "work")
	ledgerDir := filepath.Join(dir, "ledger")
	for _, d := range []string{work, ledgerDir} {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.Chown(d, nprocUser, nprocUser); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	full := filepath.Join(work, "full")

	// 48 tasks: the starter's threads (about ten), the gate and the
	// porch; the storm takes the rest, some 35 escapees.
	cmd := exec.Command(prlimit, "--nproc=48", "--", bin, "--containment", "group", "--kill-budget", budget.String(),
		"--", "perl", "-e", setsidStormEngine, full)
	cmd.Dir = work
	cmd.Env = append(os.Environ(), markVar+"="+mark, ledger.EnvDir+"="+ledgerDir)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nprocUser, Gid: nprocUser}}
	s := startCmd(t, mark, cmd)
	if got := s.line(); got != "storming" {
		t.Fatalf("Engine said %q, want storming", got)
	}
	if !waitFile(full, testproc.TooLong) {
		t.Fatalf("the storm never met the process limit; stderr: %s", s.stderr)
	}
	escapees := usersMarked(nprocUser, mark)
	if len(escapees) < 10 {
		t.Fatalf("%d escapees at the limit, want the storm to hold many slots", len(escapees))
	}
	s.signal(syscall.SIGKILL)
	killed := time.Now()
	ws := s.wait()
	if !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Fatalf("starter: %s, want killed by SIGKILL", statusString(ws))
	}
	// The porch's deadline runs from when it saw the starter go, a
	// little after the kill; a second of slack covers that and a loaded
	// machine.
	for left := usersMarked(nprocUser, mark); len(left) > 0; left = usersMarked(nprocUser, mark) {
		if time.Since(killed) > budget+time.Second {
			t.Fatalf("%d of %d escapees live %v after the starter's SIGKILL (kill budget %v): %v; stderr: %s",
				len(left), len(escapees), time.Since(killed).Round(time.Millisecond), budget, left[:min(len(left), 10)], tail(s.stderr.String(), 2000))
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Logf("%d escapees at the limit; none left %v after the starter's SIGKILL", len(escapees), time.Since(killed).Round(time.Millisecond))
}

// usersMarked lists the live processes of uid that carry mark.
func usersMarked(uid int, mark string) []int {
	var out []int
	for _, pid := range marked(mark) {
		if st, err := os.Stat("/proc/" + strconv.Itoa(pid)); err == nil && int(st.Sys().(*syscall.Stat_t).Uid) == uid {
			out = append(out, pid)
		}
	}
	return out
}

// endUsersMarked SIGKILLs, through pidfds, every process of uid that
// carries mark, again until none is left: a storm forks into the slots a
// kill frees. At most 1,000 passes.
func endUsersMarked(t *testing.T, uid int, mark string) {
	for range 1000 {
		pids := usersMarked(uid, mark)
		if len(pids) == 0 {
			return
		}
		for _, pid := range pids {
			fd, err := unix.PidfdOpen(pid, 0)
			if err != nil {
				continue
			}
			// Verified after the pidfd was opened: the number still
			// names a process of uid carrying mark.
			env, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
			st, serr := os.Stat("/proc/" + strconv.Itoa(pid))
			if err == nil && serr == nil && int(st.Sys().(*syscall.Stat_t).Uid) == uid && bytes.Contains(env, []byte(markVar+"="+mark+"\x00")) {
				_ = unix.PidfdSendSignal(fd, unix.SIGKILL, nil, 0)
			}
			unix.Close(fd)
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Errorf("processes of uid %d with the test's mark still live after 1,000 passes", uid)
}
