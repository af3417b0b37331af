package main

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// jobStopBits are SIGTSTP, SIGTTIN and SIGTTOU in a signal mask of
// /proc/PID/status (bit N-1 for signal N).
const jobStopBits = 1<<(20-1) | 1<<(21-1) | 1<<(22-1)

// TestJobStopsTheLauncherIgnoredStayIgnoredInTheEngine: a launcher that
// ignores SIGTSTP, SIGTTIN and SIGTTOU (sh's trap with an empty action,
// kept across its exec). The starter never catches them, and the Engine
// starts with them ignored, every time: the Go runtime never reports an
// inherited ignore of these three, and a catch set up while the gate was
// forked made the Engine's disposition a race. Twenty runs in each
// containment mode.
func TestJobStopsTheLauncherIgnoredStayIgnoredInTheEngine(t *testing.T) {
	for _, mode := range []string{"group", "cgroup"} {
		t.Run(mode, func(t *testing.T) {
			if mode == "cgroup" {
				needsCgroup(t)
			}
			for i := range 20 {
				mark := newMark(t)
				// The Engine's grep reads its own status (its mask is
				// the Engine's: nothing changes it) and its parent's,
				// the starter's.
				cmd := exec.Command("sh", "-c", `trap '' TSTP TTIN TTOU; exec "$0" --containment "$1" -- sh -c 'grep -E "^Sig(Ign|Cgt):" /proc/self/status /proc/$PPID/status'`, binary, mode)
				cmd.Env = append(os.Environ(), markVar+"="+mark)
				out, err := cmd.Output()
				if err != nil {
					t.Fatalf("run %d: %v; stderr: %s", i, err, stderrOf(err))
				}
				engineIgn := sigMask(t, string(out), "/proc/self/status:SigIgn:")
				starterCgt := sigMask(t, string(out), fmt.Sprintf("/proc/%d/status:SigCgt:", cmd.Process.Pid))
				if engineIgn&jobStopBits != jobStopBits {
					t.Fatalf("run %d: the Engine's SigIgn is %x, want SIGTSTP, SIGTTIN and SIGTTOU (%x) in it", i, engineIgn, jobStopBits)
				}
				if starterCgt&jobStopBits != 0 {
					t.Fatalf("run %d: the starter's SigCgt is %x, want none of SIGTSTP, SIGTTIN and SIGTTOU (%x)", i, starterCgt, jobStopBits)
				}
				noSurvivors(t, mark)
			}
		})
	}
}

// sigMask reads the hexadecimal mask of the line of out that starts with
// prefix.
func sigMask(t *testing.T, out, prefix string) uint64 {
	t.Helper()
	for line := range strings.SplitSeq(out, "\n") {
		if v, ok := strings.CutPrefix(line, prefix); ok {
			m, err := strconv.ParseUint(strings.TrimSpace(v), 16, 64)
			if err != nil {
				t.Fatal(err)
			}
			return m
		}
	}
	t.Fatalf("no line %q in:\n%s", prefix, out)
	return 0
}

// stderrOf is the stderr an exec.ExitError kept, if any.
func stderrOf(err error) string {
	if ee, ok := err.(*exec.ExitError); ok {
		return string(ee.Stderr)
	}
	return ""
}
