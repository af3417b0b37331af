package main

// The ledger across PID namespaces: a record's numbers are its writer's
// namespace's, and a reclaim in another namespace signals nothing of it.

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/session-starter/session-starter/internal/ledger"
	"github.com/session-starter/session-starter/internal/proc"
	"github.com/session-starter/session-starter/internal/testproc"
)

// needsPIDNamespace skips a test that cannot make a PID namespace of its
// own: unshare(1) and root are needed.
func needsPIDNamespace(t *testing.T) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("a PID namespace of its own needs root")
	}
	if _, err := exec.LookPath("unshare"); err != nil {
		t.Skip("no unshare(1)")
	}
}

// markedSleep is the live process carrying mark whose comm is sleep.
func markedSleep(t *testing.T, mark string) int {
	t.Helper()
	pid := 0
	testproc.Eventually(t, "the Engine (sleep) must run", func() bool {
		for _, p := range marked(mark) {
			if st, err := proc.ReadStat(p); err == nil && st.Comm == "sleep" {
				pid = p
				return true
			}
		}
		return false
	})
	return pid
}

// TestAReclaimInTheHostSignalsNothingOfASessionInAChildPIDNamespace: a
// session runs in a PID namespace of its own that shares the ledger. Its
// starter's and guard's numbers there name other processes here, or
// none. The host's --reclaim reports the record other-namespace, signals
// nothing and keeps it, exit 0. Once the namespace has ended (its init
// SIGKILLed: the kernel ends every process of it), the next --reclaim
// drops the record, namespace-gone.
func TestAReclaimInTheHostSignalsNothingOfASessionInAChildPIDNamespace(t *testing.T) {
	needsPIDNamespace(t)
	mark := newMark(t)
	dir, opt := withLedger(t)
	// unshare --kill-child: the namespace's init (sh) dies with unshare.
	cmd := exec.Command("unshare", "--pid", "--fork", "--mount-proc", "--kill-child", "sh", "-c",
		`"$0" --containment group -- sh -c 'echo ready; exec sleep 600' & wait`, binary)
	cmd.Env = append(os.Environ(), markVar+"="+mark)
	s := startCmd(t, mark, cmd, opt)
	if got := s.line(); got != "ready" {
		t.Fatalf("the Engine said %q, want ready; stderr %s", got, s.stderr)
	}
	engine := markedSleep(t, mark)
	session := recordOf(t, dir)

	out, rep, code := reclaimCmd(t, dir)
	if code != 0 || len(rep.Sessions) != 1 || rep.Sessions[0].Action != "other-namespace" || len(rep.Sessions[0].Ended) != 0 {
		t.Fatalf("--reclaim in the host: exit %d, %q, %+v; want exit 0, the record other-namespace, nothing ended", code, out, rep)
	}
	if st, err := proc.ReadStat(engine); err != nil || !st.Live() {
		t.Fatalf("the Engine in the namespace (%d here): %v, %v; want it alive", engine, st, err)
	}
	if _, err := os.Lstat(filepath.Join(dir, ledger.FileName(session))); err != nil {
		t.Fatalf("the record of the live session: %v; want it kept", err)
	}

	// The namespace's init, unshare's one child: it ends only once the
	// kernel has ended and reaped every other process of the namespace.
	kids, err := proc.Children(s.cmd.Process.Pid)
	if err != nil || len(kids) != 1 {
		t.Fatalf("the children of unshare: %v, %v; want its one child, the namespace's init", kids, err)
	}
	nsInit, err := proc.ReadStat(kids[0])
	if err != nil {
		t.Fatal(err)
	}
	s.signal(syscall.SIGKILL)
	s.wait()
	noSurvivors(t, mark)
	testproc.Eventually(t, "the namespace's init must end", func() bool {
		st, err := proc.ReadStat(nsInit.PID)
		return err != nil || !st.Live() || st.StartTime != nsInit.StartTime
	})
	out, rep, code = reclaimCmd(t, dir)
	if code != 0 || len(rep.Sessions) != 1 || rep.Sessions[0].Action != "namespace-gone" || len(rep.Sessions[0].Ended) != 0 {
		t.Fatalf("--reclaim after the namespace ended: exit %d, %q, %+v; want exit 0, the record namespace-gone", code, out, rep)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Fatalf("after the reclaim the ledger holds %v, want nothing", entries)
	}
}

// TestAReclaimInAChildPIDNamespaceSignalsNothingOfTheOuterSession: a
// launcher in a PID-namespace sandbox, inside a session, runs --reclaim
// before its own session. It cannot see the outer session's starter and
// guard, and its own parent carries the outer session's mark. The
// reclaim reports the outer record other-namespace and signals nothing:
// its parent lives to print the reclaim's exit, 0, and the outer session
// runs on.
func TestAReclaimInAChildPIDNamespaceSignalsNothingOfTheOuterSession(t *testing.T) {
	needsPIDNamespace(t)
	mark := newMark(t)
	dir, opt := withLedger(t)
	// In the namespace: its init (sh), the launcher (sh, PID 2), which
	// runs --reclaim and then says how it exited.
	sandbox := `unshare --pid --fork --mount-proc --kill-child sh -c 'sh -c "\"\$0\" --reclaim; echo reclaim-exit=\$?" "$0"' "$0"; echo ready; exec sleep 600`
	s := start(t, mark, []string{"--containment", "group", "--", "sh", "-c", sandbox, binary}, opt)
	session := recordOf(t, dir)
	var said []string
	for {
		l := s.line()
		if l == "ready" {
			break
		}
		said = append(said, l)
	}
	all := strings.Join(said, "\n")
	if !strings.Contains(all, "reclaim-exit=0") || !strings.Contains(all, "session "+session+": other-namespace; ended 0") {
		t.Fatalf("in the namespace: %q; want the outer record other-namespace, nothing ended, and the reclaim's parent alive to say exit 0", all)
	}
	markedSleep(t, mark)
	if _, err := os.Lstat(filepath.Join(dir, ledger.FileName(session))); err != nil {
		t.Fatalf("the record of the outer session: %v; want it kept", err)
	}
	s.signal(syscall.SIGTERM)
	s.wait()
	noSurvivors(t, mark)
}

// TestAReclaimRefusesAProcOfAnotherPIDNamespace: in a PID namespace of its
// own whose /proc is still the host's, the numbers /proc lists are not
// the ones pidfds are opened by. --reclaim, with a record to read,
// refuses to run, exit 125 and no record, and signals nothing.
func TestAReclaimRefusesAProcOfAnotherPIDNamespace(t *testing.T) {
	needsPIDNamespace(t)
	dir := privateDir(t)
	none := ledger.Process{PID: 1 << 22, Token: ledger.Token{Start: 1}}
	writeRecord(t, dir, ledger.Record{Version: ledger.Version, BootID: "00000000-0000-0000-0000-000000000000", Session: strings.Repeat("cd", 16),
		UID: os.Getuid(), Mode: "group", Starter: none, Guard: none, Engine: none, PGID: none.PID})
	cmd := exec.Command("unshare", "--pid", "--fork", "--kill-child", binary, "--reclaim")
	cmd.Env = append(os.Environ(), ledger.EnvDir+"="+dir)
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 125 || !strings.Contains(string(out), "belongs to another PID namespace") {
		t.Fatalf("--reclaim with the host's /proc in a PID namespace: %v, %q; want exit 125, /proc refused", err, out)
	}
}
