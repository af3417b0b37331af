//go:build linux && !portable

package mark

import (
	"os"
	"os/exec"
	"slices"
	"syscall"
	"testing"

	"github.com/session-starter/session-starter/internal/proc"
	"github.com/session-starter/session-starter/internal/sys"
	"github.com/session-starter/session-starter/internal/testproc"
)

// sleeper starts sleep 600 with env added to this process's environment
// and args after "sleep"; the test ends and reaps it.
func sleeper(t *testing.T, cred *syscall.Credential, env []string, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command("/bin/sh", append([]string{"-c", `exec sleep 600`}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	if cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	// Until the shell has executed sleep: its environment is then the
	// one it was given, and its name sleep.
	testproc.Eventually(t, "sleep must run", func() bool {
		st, err := proc.ReadStat(cmd.Process.Pid)
		return err == nil && st.Comm == "sleep"
	})
	return cmd
}

func pidsOf(found []Found) []int {
	var pids []int
	for _, f := range found {
		pids = append(pids, f.PID)
		sys.Close(f.Pidfd)
	}
	return pids
}

// TestScanFindsExactlyTheMarkedProcessesOfTheSession: a process that
// carries the id is found, with a pidfd that names it; one that carries
// another session's id, one that has the mark in its argv and not its
// environment, and one that started before the session are not; another
// user's process that carries it is left, with the reason.
func TestScanFindsExactlyTheMarkedProcessesOfTheSession(t *testing.T) {
	id, _ := New()
	other, _ := New()
	marked := sleeper(t, nil, []string{Var + "=" + other.String() + ":" + id.String()})
	stranger := sleeper(t, nil, []string{Var + "=" + other.String()})
	inArgv := sleeper(t, nil, nil, Var+"="+id.String())
	var foreign *exec.Cmd
	if os.Getuid() == 0 {
		foreign = sleeper(t, &syscall.Credential{Uid: 65534, Gid: 65534}, []string{Var + "=" + id.String()})
	}
	found, left, err := Scan(id, 0, os.Getuid(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := pidsOf(found); !slices.Equal(got, []int{marked.Process.Pid}) {
		t.Errorf("Scan found %v, want only the marked %d (stranger %d, mark in argv %d)", got, marked.Process.Pid, stranger.Process.Pid, inArgv.Process.Pid)
	}
	if foreign != nil && !slices.Contains(left, Left{PID: foreign.Process.Pid, Reason: LeftOtherUID}) {
		t.Errorf("Scan left %v, want %d left as %s", left, foreign.Process.Pid, LeftOtherUID)
	}
	for _, l := range left {
		if l.PID == marked.Process.Pid || l.PID == stranger.Process.Pid {
			t.Errorf("Scan left %v: %d was decided", l, l.PID)
		}
	}

	st, err := proc.ReadStat(marked.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	found, _, err = Scan(id, st.StartTime+1, os.Getuid(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := pidsOf(found); len(got) != 0 {
		t.Errorf("Scan after the marked process's start found %v, want none", got)
	}
	found, _, err = Scan(id, 0, os.Getuid(), func(pid int) bool { return pid == marked.Process.Pid })
	if err != nil {
		t.Fatal(err)
	}
	if got := pidsOf(found); len(got) != 0 {
		t.Errorf("Scan skipping %d found %v, want none", marked.Process.Pid, got)
	}
}

// TestTheHolderEndsTheMarkedProcessesAndThenIsEmpty: SIGKILL through the
// holder reaches the marked process and no other, and then the holder
// shows no live member (a zombie is not one) and answers gone.
func TestTheHolderEndsTheMarkedProcessesAndThenIsEmpty(t *testing.T) {
	id, _ := New()
	marked := sleeper(t, nil, []string{Var + "=" + id.String()})
	bystander := sleeper(t, nil, nil)
	h := &Holder{ID: id, UID: os.Getuid()}
	live, err := h.Live()
	if err != nil || len(live) != 1 || live[0].PID != marked.Process.Pid {
		t.Fatalf("Live() = %v, %v; want the marked %d", live, err, marked.Process.Pid)
	}
	if err := h.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	testproc.Eventually(t, "the marked process must be dead", func() bool {
		st, err := proc.ReadStat(marked.Process.Pid)
		return err == nil && !st.Live()
	})
	if st, err := proc.ReadStat(bystander.Process.Pid); err != nil || !st.Live() {
		t.Fatalf("the bystander %d: %v, %v; want it alive", bystander.Process.Pid, st, err)
	}
	if live, err := h.Live(); err != nil || len(live) != 0 {
		t.Fatalf("Live() after the kill = %v, %v; want none (the zombie is no member)", live, err)
	}
	if err := h.Signal(syscall.SIGKILL); err != sys.ErrGone {
		t.Fatalf("Signal() after the kill = %v, want %v", err, sys.ErrGone)
	}
}

// TestAHolderThatIsNotActiveNeitherSeesNorSignalsItsMarkedProcesses: the
// marked process is stopped, and the holder sends SIGCONT, which wakes a
// stopped process within the sender's call: a process still stopped after
// the holder's Signal got none.
func TestAHolderThatIsNotActiveNeitherSeesNorSignalsItsMarkedProcesses(t *testing.T) {
	id, _ := New()
	marked := sleeper(t, nil, []string{Var + "=" + id.String()})
	pid := marked.Process.Pid
	if err := marked.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	stopped := func() bool { st, err := proc.ReadStat(pid); return err == nil && st.State == 'T' }
	testproc.Eventually(t, "the marked process must stop", stopped)
	active := false
	h := &Holder{ID: id, UID: os.Getuid(), Active: func() bool { return active }}
	if live, err := h.Live(); err != nil || len(live) != 0 {
		t.Fatalf("Live() while not active = %v, %v; want none", live, err)
	}
	if err := h.Signal(syscall.SIGCONT); err != nil || !stopped() {
		t.Fatalf("Signal(SIGCONT) while not active = %v, and the marked %d stopped %v; want nil, still stopped", err, pid, stopped())
	}
	active = true
	if live, err := h.Live(); err != nil || len(live) != 1 || live[0].PID != pid {
		t.Fatalf("Live() once active = %v, %v; want the marked %d", live, err, pid)
	}
	if err := h.Signal(syscall.SIGCONT); err != nil || stopped() {
		t.Fatalf("Signal(SIGCONT) once active = %v, and the marked %d stopped %v; want nil, continued", err, pid, stopped())
	}
}

// BenchmarkScanAmong5000UnrelatedProcesses is the cost of one look of the
// guard's mark sweep (and of each pass of a reclaim) on a host with 5,000
// processes that carry no mark: "older", started before the session,
// passed over on their stat alone; "younger", started after it, each
// opened and its environment read.
func BenchmarkScanAmong5000UnrelatedProcesses(b *testing.B) {
	id, _ := New()
	// 5,000 sleeps in a process group of their own, ended with it.
	cmd := exec.Command("/bin/sh", "-c", `i=0; while [ $i -lt 5000 ]; do sleep 600 & i=$((i+1)); done; echo started; wait`)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	out, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // the group we made, led by our unreaped child
		_ = cmd.Wait()
	}()
	var line [8]byte
	if _, err := out.Read(line[:]); err != nil {
		b.Fatal(err)
	}
	self, err := proc.ReadStat(os.Getpid())
	if err != nil {
		b.Fatal(err)
	}
	for _, tt := range []struct {
		name  string
		since uint64
	}{{"older", ^uint64(0) >> 1}, {"younger", self.StartTime}} {
		b.Run(tt.name, func(b *testing.B) {
			for b.Loop() {
				found, _, err := Scan(id, tt.since, os.Getuid(), nil)
				if err != nil || len(found) != 0 {
					b.Fatalf("Scan = %d found, %v", len(found), err)
				}
			}
		})
	}
}
