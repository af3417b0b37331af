package main

import (
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"

	"github.com/session-starter/session-starter/internal/proc"
	"github.com/session-starter/session-starter/starter/launch"
)

// importedCopy starts a stranger as an environment importer would make
// one (`systemctl --user import-environment`, tmux's update-environment):
// a process of this user, started after the session and outside its tree
// and cgroup, that carries an exact copy of the session's mark value.
func importedCopy(t *testing.T, value string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command("/bin/sh", "-c", "exec sleep 600")
	cmd.Env = append(os.Environ(), launch.SessionVar+"="+value)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	return cmd
}

func wantAlive(t *testing.T, cmd *exec.Cmd) {
	t.Helper()
	if st, err := proc.ReadStat(cmd.Process.Pid); err != nil || !st.Live() {
		t.Errorf("the process %d that carries an imported copy of the mark: %v, %v; want it alive", cmd.Process.Pid, st, err)
	}
}

// TestTheGuardSparesACopyOfTheMarkInCgroupMode: after a starter SIGKILL in
// cgroup mode, the guard ends the session cgroup, escapees included, and
// no process outside it that merely carries a copy of the mark's value.
func TestTheGuardSparesACopyOfTheMarkInCgroupMode(t *testing.T) {
	mark := newMark(t)
	s, pid, dir := startCgroup(t, mark, []string{"--", "sh", "-c", `echo "$` + launch.SessionVar + `"; ` + setsidEscape + ` read x`})
	value := s.line()
	escaped(t, s, pid)
	stranger := importedCopy(t, value)
	guard := pidfdOf(t, guardOf(t, s.cmd.Process.Pid))
	s.signal(syscall.SIGKILL)
	s.wait()
	noSurvivors(t, mark)
	awaitExit(t, guard, "the guard must exit once the session is ended")
	gone(t, dir)
	wantAlive(t, stranger)
}

// TestAnEndSparesACopyOfTheMarkWhileTheStarterLives: at the Engine's exit
// the starter's own end holds the session by its group and its subreaper
// sweep (or its cgroup), never by the mark, so a process outside the
// session that carries a copy of the mark's value outlives the end in
// both modes.
func TestAnEndSparesACopyOfTheMarkWhileTheStarterLives(t *testing.T) {
	for _, mode := range []string{"group", "cgroup"} {
		t.Run(mode, func(t *testing.T) {
			if mode == "cgroup" {
				needsCgroup(t)
			} else {
				needsSubreaper(t)
			}
			mark := newMark(t)
			s := start(t, mark, []string{"--containment", mode, "--ack", "--", "sh", "-c", `echo "$` + launch.SessionVar + `"; ` + setsidEscape + ` read x; exit 5`})
			pid := s.ack()
			value := s.line()
			escaped(t, s, pid)
			stranger := importedCopy(t, value)
			if _, err := s.in.Write([]byte("x\n")); err != nil {
				t.Fatal(err)
			}
			wantExit(t, s.wait(), 5, s.stderr)
			noSurvivors(t, mark)
			wantAlive(t, stranger)
		})
	}
}

// TestReclaimSparesACopyOfTheMarkInCgroupMode: a reclaim of a cgroup-mode
// session whose starter and guard died together ends what its cgroup
// holds, and no process outside it that merely carries a copy of the
// mark's value; its dry run lists the cgroup's processes, the copy not.
func TestReclaimSparesACopyOfTheMarkInCgroupMode(t *testing.T) {
	if portable {
		t.Skip("the portable build has no cgroup")
	}
	mark := newMark(t)
	dir, opt := withLedger(t)
	s, pid, _ := startCgroup(t, mark, []string{"--", "sh", "-c", `echo "$` + launch.SessionVar + `"; ` + setsidEscape + ` read x`}, opt)
	value := s.line()
	escapee := escaped(t, s, pid)
	stranger := importedCopy(t, value)
	guard := guardOf(t, s.cmd.Process.Pid)
	s.signal(syscall.SIGSTOP)
	if err := syscall.Kill(guard, syscall.SIGKILL); err != nil { // our grandchild, its parent stopped: the PID is its
		t.Fatal(err)
	}
	s.signal(syscall.SIGKILL)
	s.wait()

	out, rep, code := reclaimCmd(t, dir, "--dry-run")
	if code != 0 || len(rep.Sessions) != 1 || rep.Sessions[0].Action != "would-reclaim" {
		t.Fatalf("--reclaim --dry-run: exit %d, %q, %+v; want one session to reclaim", code, out, rep)
	}
	listed := map[int]bool{}
	for _, e := range rep.Sessions[0].Ended {
		listed[e.PID] = true
	}
	if !listed[pid] || !listed[escapee] || listed[stranger.Process.Pid] {
		t.Errorf("--reclaim --dry-run would end %+v; want the Engine %d and the escapee %d, not the copy %d; the report: %+v, %q",
			rep.Sessions[0].Ended, pid, escapee, stranger.Process.Pid, rep.Sessions[0], out)
	}

	out, rep, code = reclaimCmd(t, dir)
	if code != 0 || len(rep.Sessions) != 1 || rep.Sessions[0].Action != "reclaimed" || !strings.Contains(out, "reclaimed") {
		t.Fatalf("--reclaim: exit %d, %q, %+v; want one session reclaimed", code, out, rep)
	}
	noSurvivors(t, mark)
	wantAlive(t, stranger)
}
