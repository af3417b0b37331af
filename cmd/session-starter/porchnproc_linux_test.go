package main

// The raw guard under its user's process limit: the guard proper, a Go
// program, cannot make its threads there, so what the porch does alone
// must end the session.

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/session-starter/session-starter/internal/ledger"
	"github.com/session-starter/session-starter/internal/proc"
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
	awaitNoProcessesOfTheUser(t)
	const budget = 5 * time.Second
	mark := newMark(t)
	// Registered after newMark's: runs first, and ends the storm, which
	// forks again into every slot a kill frees, by its user and mark.
	t.Cleanup(func() { endMarked(t, mark) })

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

// endMarked ends the test's marked processes, all its own (the mark is
// the test's), again until none is left: a storm forks into the slots a
// kill frees. At most 50 rounds of killMarked.
func endMarked(t *testing.T, mark string) {
	for range 50 {
		if len(killMarked(mark)) == 0 && len(marked(mark)) == 0 {
			return
		}
	}
	t.Errorf("processes with the test's mark %s still live after 50 rounds", mark)
}

// nonDumpableEngine forks an escapee that leaves group E (setsid with
// "setsid", else setpgrp: a group of its own in E's session), makes itself
// not dumpable (prctl(PR_SET_DUMPABLE, 0) through its system call number,
// the first argument), says "escapee PID" and sleeps, at most 120 s.
const nonDumpableEngine = `$| = 1; use POSIX (); my ($nr, $how) = @ARGV;
my $p = fork; if (defined $p && $p == 0) { if ($how eq 'setsid') { POSIX::setsid() } else { setpgrp(0, 0) }
  syscall($nr, 4, 0) == 0 or die "prctl: $!"; print "escapee $$\n"; open(STDOUT, '>', '/dev/null'); open(STDERR, '>', '/dev/null'); alarm 120; sleep 120; exit 0 }
alarm 120; sleep 120;`

// TestAnEscapeeThatCannotBeVerifiedKeepsTheRecordOnlyWhenTiedToTheSession
// runs a group-mode session as an unprivileged user whose escapee is not
// dumpable (as ssh-agent makes itself): its environment, and so its
// mark, cannot be read. After a SIGKILL of the starter the guard never
// signals it. It keeps the session's ledger record, naming it, when the
// escapee is still in E's session; one that called setsid is tied to the
// session by nothing but its unreadable mark, and the record goes.
func TestAnEscapeeThatCannotBeVerifiedKeepsTheRecordOnlyWhenTiedToTheSession(t *testing.T) {
	if portable {
		t.Skip("the portable build verifies no mark (macOS's paths have no pidfd)")
	}
	needPerl(t)
	if os.Geteuid() != 0 {
		skipUnlessCI(t, "needs root to run the session as another user")
	}
	// prctl's number for perl's syscall: this build's is the machine's.
	prctl := unix.SYS_PRCTL
	for _, how := range []string{"setpgrp", "setsid"} {
		t.Run(how, func(t *testing.T) {
			awaitNoProcessesOfTheUser(t)
			mark := newMark(t)
			t.Cleanup(func() { endMarked(t, mark) })
			// Not t.TempDir: its parent is not open to the user.
			dir, err := os.MkdirTemp("", "session-starter-undumpable-")
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { os.RemoveAll(dir) })
			if err := os.Chmod(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			bin := filepath.Join(dir, "session-starter")
			copyFile(t, binary, bin)
			ledgerDir := filepath.Join(dir, "ledger")
			if err := os.Mkdir(ledgerDir, 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.Chown(ledgerDir, nprocUser, nprocUser); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(bin, "--containment", "group", "--log-level", "debug", "--", "perl", "-e", nonDumpableEngine, strconv.Itoa(prctl), how)
			cmd.Dir = "/"
			cmd.Env = append(os.Environ(), markVar+"="+mark, ledger.EnvDir+"="+ledgerDir)
			// A session of its own: one whose leader is outside this PID
			// namespace (a CI job's) reads 0, and ties nothing.
			cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Credential: &syscall.Credential{Uid: nprocUser, Gid: nprocUser}}
			s := startCmd(t, mark, cmd)
			var escapee int
			if _, err := fmt.Sscanf(s.line(), "escapee %d", &escapee); err != nil {
				t.Fatalf("no escapee line: %v; stderr: %s", err, s.stderr)
			}
			s.signal(syscall.SIGKILL)
			s.wait()
			// The guard is done once the escapee is the user's last live
			// process.
			testproc.Eventually(t, "the guard must end", func() bool {
				left := 0
				for _, pid := range usersLive(nprocUser) {
					if pid != escapee {
						left++
					}
				}
				return left == 0
			})
			if st, err := os.Stat("/proc/" + strconv.Itoa(escapee)); err != nil || int(st.Sys().(*syscall.Stat_t).Uid) != nprocUser {
				t.Fatalf("the escapee %d, which cannot be verified, was signalled (%v)", escapee, err)
			}
			records, err := os.ReadDir(ledgerDir)
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case how == "setsid" && len(records) != 0:
				t.Errorf("the record stays for an escapee that nothing but its unreadable mark ties to the session: %v", records)
			case how == "setpgrp" && len(records) != 1:
				t.Errorf("records %v, want the session's kept for an escapee in E's session; stderr: %s", records, s.stderr)
			case how == "setpgrp":
				b, err := os.ReadFile(filepath.Join(ledgerDir, records[0].Name()))
				if want := "mark-unreadable " + strconv.Itoa(escapee); err != nil || !bytes.Contains(b, []byte(want)) {
					t.Errorf("record %s: %v, want it to name %q", b, err, want)
				}
			}
		})
	}
}

// awaitNoProcessesOfTheUser waits until nprocUser has no process, zombies
// included, and skips the test if some are still there after 10 s. A run
// before this one may leave zombies of the user's for init to reap:
// RLIMIT_NPROC counts them, and the tests count the user's processes.
// Nothing announces another process's reap: it polls.
func awaitNoProcessesOfTheUser(t *testing.T) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); processesOf(nprocUser) > 0; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Skipf("uid %d has %d processes on this machine", nprocUser, processesOf(nprocUser))
		}
	}
}

// usersLive lists the live processes of uid (zombies left out).
func usersLive(uid int) []int {
	var out []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		st, err := os.Stat("/proc/" + e.Name())
		if err != nil || int(st.Sys().(*syscall.Stat_t).Uid) != uid {
			continue
		}
		if st, err := proc.ReadStat(pid); err == nil && st.State == 'Z' {
			continue
		}
		out = append(out, pid)
	}
	return out
}
