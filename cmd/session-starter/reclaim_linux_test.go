package main

// The ledger and --reclaim: what a session leaves when its starter and
// its guard are SIGKILLed together is ended later, by identity.

import (
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/session-starter/session-starter/internal/ledger"
	"github.com/session-starter/session-starter/internal/proc"
	"github.com/session-starter/session-starter/internal/testproc"
	"github.com/session-starter/session-starter/starter/launch"
)

// writeRecord writes r into the ledger dir, through a descriptor of it
// as a session does.
func writeRecord(t *testing.T, dir string, r ledger.Record) {
	t.Helper()
	f, err := os.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := ledger.Write(int(f.Fd()), r); err != nil {
		t.Fatal(err)
	}
}

// withLedger points the sessions of the test at a ledger directory of
// its own, and returns it.
func withLedger(t *testing.T) (string, startOpt) {
	t.Helper()
	dir := privateDir(t)
	return dir, func(c *exec.Cmd) { c.Env = append(c.Env, ledger.EnvDir+"="+dir) }
}

// treeOf50 is an Engine that starts 49 more processes: 24 members of its
// group, 24 that left it with setsid and one double-forked daemon, then
// says ready.
const treeOf50 = `for i in $(seq 24); do sleep 600 & done; for i in $(seq 24); do setsid sleep 600 & done; ( setsid sleep 600 & ); echo ready; exec sleep 600`

// TestReclaimEndsWhatASessionLeftWhenItsStarterAndGuardDiedTogether: the
// starter and the guard SIGKILLed together (the starter stopped first, so
// that it cannot end the session when it loses its guard) leave a tree of
// 50 processes; --reclaim --dry-run lists them and ends nothing;
// --reclaim ends all 50 and says so; a second --reclaim finds nothing.
func TestReclaimEndsWhatASessionLeftWhenItsStarterAndGuardDiedTogether(t *testing.T) {
	for _, mode := range []string{"group", "cgroup"} {
		t.Run(mode, func(t *testing.T) {
			if mode == "cgroup" {
				needsCgroup(t)
			}
			if portable {
				t.Skip("the portable build verifies no mark (macOS's paths have no pidfd)")
			}
			mark := newMark(t)
			dir, opt := withLedger(t)
			s := start(t, mark, []string{"--containment", mode, "--ack", "--", "sh", "-c", treeOf50}, opt)
			s.ack()
			if got := s.line(); got != "ready" {
				t.Fatalf("Engine said %q, want ready", got)
			}
			guard := guardOf(t, s.cmd.Process.Pid)
			// The starter carries the test's mark too, and so does the raw
			// guard (a fork: it shows the starter's environment).
			want := 51
			if rawGuard() {
				want = 52
			}
			// Each of the 50 in sleep: a process between its fork and the
			// exec of sleep (setsid execs twice) shows an empty environment
			// for a moment, and would be missed by a later count.
			testproc.Eventually(t, "the tree of 50 must run sleep", func() bool {
				pids := marked(mark)
				return len(pids) == want && sleeping(pids) == 50
			})
			s.signal(syscall.SIGSTOP)
			if err := syscall.Kill(guard, syscall.SIGKILL); err != nil { // our grandchild, its parent stopped: the PID is its
				t.Fatal(err)
			}
			s.signal(syscall.SIGKILL)
			s.wait()
			if n := len(marked(mark)); n != 50 {
				t.Fatalf("%d processes of the session left, want all 50 (the guard must not have ended them)", n)
			}

			out, rep, code := reclaimCmd(t, dir, "--dry-run")
			if code != 0 || len(rep.Sessions) != 1 || rep.Sessions[0].Action != "would-reclaim" || len(rep.Sessions[0].Ended) != 50 {
				t.Fatalf("--reclaim --dry-run: exit %d, %q, %+v; want one session, 50 to end", code, out, rep)
			}
			if n := len(marked(mark)); n != 50 {
				t.Fatalf("--dry-run ended %d processes, want none", 50-n)
			}

			out, rep, code = reclaimCmd(t, dir)
			if code != 0 || len(rep.Sessions) != 1 || rep.Sessions[0].Action != "reclaimed" || len(rep.Sessions[0].Ended) != 50 || len(rep.Sessions[0].Left) != 0 {
				t.Fatalf("--reclaim: exit %d, %q, %+v; want one session reclaimed, 50 ended, none left", code, out, rep)
			}
			if !strings.Contains(out, "reclaimed; ended 50") {
				t.Errorf("--reclaim printed %q, want the count of what it ended", out)
			}
			noSurvivors(t, mark)
			if out, rep, code = reclaimCmd(t, dir); code != 0 || len(rep.Sessions) != 0 || !strings.Contains(out, "no dead session") {
				t.Fatalf("a second --reclaim: exit %d, %q, %+v; want nothing found", code, out, rep)
			}
		})
	}
}

// TestALedgerRecordLivesAsLongAsItsSession: the record is written before
// the Engine runs, names the session's mark, and is removed at a clean
// end.
func TestALedgerRecordLivesAsLongAsItsSession(t *testing.T) {
	mark := newMark(t)
	dir, opt := withLedger(t)
	s := start(t, mark, []string{"--containment", "group", "--log-level", "info", "--ack", "--", "sh", "-c", `echo "$` + launch.SessionVar + `"; read x; exit 3`}, opt)
	s.ack()
	value := s.line()
	recs, probs, err := ledger.Read(dir)
	if err != nil || len(probs) != 0 || len(recs) != 1 || !strings.HasSuffix(value, recs[0].Session) || recs[0].Starter.PID != s.cmd.Process.Pid {
		t.Fatalf("ledger.Read(%s) = %+v, %v, %v; want the one record of this session (mark %q); stderr %s", dir, recs, probs, err, value, s.stderr)
	}
	if _, err := s.in.Write([]byte("x\n")); err != nil {
		t.Fatal(err)
	}
	wantExit(t, s.wait(), 3, s.stderr)
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Fatalf("after the end the ledger holds %v, want nothing", entries)
	}
}

// TestReclaimTouchesNothingItCannotTrust: a torn record and a record of
// another boot are reported, and the live process that carries the
// latter's mark is not signalled; a ledger directory behind a symlink, or
// open to others, is refused whole.
func TestReclaimTouchesNothingItCannotTrust(t *testing.T) {
	if portable {
		t.Skip("the portable build verifies no mark (macOS's paths have no pidfd)")
	}
	dir := privateDir(t)
	session := strings.Repeat("cd", 16)
	victim := exec.Command("sleep", "600")
	victim.Env = append(os.Environ(), launch.SessionVar+"="+session)
	if err := victim.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = victim.Process.Kill(); _ = victim.Wait() })
	st, err := proc.ReadStat(victim.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	// A record of another boot whose starter and guard are long gone.
	other := ledger.Record{Version: ledger.Version, BootID: "00000000-0000-0000-0000-000000000000", Session: session, UID: os.Getuid(), Mode: "group",
		Starter: ledger.Process{PID: 1 << 22, Token: ledger.Token{Start: 1}}, Guard: ledger.Process{PID: 1<<22 + 1, Token: ledger.Token{Start: 1}},
		Engine: ledger.Process{PID: 1<<22 + 2, Token: ledger.Token{Start: st.StartTime}}, PGID: 1<<22 + 2}
	writeRecord(t, dir, other)
	if err := os.WriteFile(filepath.Join(dir, strings.Repeat("ef", 16)+".json"), []byte(`{"version":1,"boot_id":`), 0o600); err != nil {
		t.Fatal(err)
	}
	out, rep, code := reclaimCmd(t, dir)
	if code != 0 || len(rep.Problems) != 1 || !strings.Contains(rep.Problems[0].Reason, "torn") {
		t.Errorf("--reclaim: exit %d, %q, %+v; want 0 (no survivor) and the torn record reported", code, out, rep)
	}
	if len(rep.Sessions) != 1 || rep.Sessions[0].Action != "other-boot" || len(rep.Sessions[0].Ended) != 0 {
		t.Errorf("--reclaim: %+v; want the other boot's record dropped, nothing ended", rep.Sessions)
	}
	if st, err := proc.ReadStat(victim.Process.Pid); err != nil || !st.Live() {
		t.Fatalf("the process with the other boot's mark: %v, %v; want it alive", st, err)
	}

	link := filepath.Join(t.TempDir(), "ledger")
	if err := os.Symlink(dir, link); err != nil {
		t.Fatal(err)
	}
	open := t.TempDir()
	if err := os.Chmod(open, 0o777); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{link, open} {
		cmd := exec.Command(binary, "--reclaim")
		cmd.Env = append(os.Environ(), ledger.EnvDir+"="+d)
		got, err := cmd.CombinedOutput()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 125 || !strings.Contains(string(got), "ledger: off") {
			t.Errorf("--reclaim with the ledger %s: %v, %q; want exit 125, the ledger off", d, err, got)
		}
	}
	if st, err := proc.ReadStat(victim.Process.Pid); err != nil || !st.Live() {
		t.Fatalf("the marked process: %v, %v; want it alive", st, err)
	}
}

// TestAReclaimThatFailsWritesNoRecord: with the ledger off (its
// directory open to others), --reclaim exits 125 with the reason on
// stderr and writes nothing to --status-fd: no partial record a launcher
// could take for a report.
func TestAReclaimThatFailsWritesNoRecord(t *testing.T) {
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	cmd := exec.Command(binary, "--reclaim", "--status-fd", "3")
	cmd.Env = append(os.Environ(), ledger.EnvDir+"="+dir)
	cmd.ExtraFiles = []*os.File{w}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	err = cmd.Run()
	w.Close()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 125 || !strings.Contains(stderr.String(), "reclaim") {
		t.Fatalf("--reclaim with the ledger off: %v, stderr %q; want exit 125 with the reason", err, stderr.String())
	}
	if b, _ := io.ReadAll(r); len(b) != 0 {
		t.Errorf("--status-fd got %q, want no record", b)
	}
}

// hereNS is this process's namespaces, as a record of a session here
// names them.
func hereNS(t *testing.T) *ledger.Namespaces {
	t.Helper()
	ns, err := ledger.Here()
	if err != nil {
		t.Fatal(err)
	}
	return ns
}

// TestAReclaimWhoseRecordsPIDsWereMerelyReusedExitsZero: a dead session
// whose starter's and guard's PIDs now name strangers, and whose Engine
// is gone, left nothing. --reclaim reports the two PIDs, token-mismatch,
// signals neither and exits 0: 125 is only for a process verified as the
// session's that is left.
func TestAReclaimWhoseRecordsPIDsWereMerelyReusedExitsZero(t *testing.T) {
	dir := privateDir(t)
	stranger := exec.Command("sleep", "600")
	if err := stranger.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = stranger.Process.Kill(); _ = stranger.Wait() })
	boot, err := ledger.BootID()
	if err != nil {
		t.Fatal(err)
	}
	// Start 1: no process of this boot started at tick 1 but its first.
	r := ledger.Record{Version: ledger.Version, BootID: boot, Session: strings.Repeat("ab", 16), UID: os.Getuid(), Mode: "group", Created: ledger.Now(),
		Starter: ledger.Process{PID: os.Getpid(), Token: ledger.Token{Start: 1}}, Guard: ledger.Process{PID: stranger.Process.Pid, Token: ledger.Token{Start: 1}},
		Engine: ledger.Process{PID: 1 << 22, Token: ledger.Token{Start: 1}}, PGID: 1 << 22, NS: hereNS(t)}
	writeRecord(t, dir, r)
	out, rep, code := reclaimCmd(t, dir)
	if code != 0 || len(rep.Sessions) != 1 || rep.Sessions[0].Action != "reclaimed" || survivors(rep) != 0 {
		t.Fatalf("--reclaim: exit %d, %q, %+v; want exit 0, the session reclaimed, no survivor", code, out, rep)
	}
	mismatched := map[int]bool{}
	for _, l := range rep.Sessions[0].Left {
		if l.Reason == "token-mismatch" {
			mismatched[l.PID] = true
		}
	}
	if !mismatched[os.Getpid()] || !mismatched[stranger.Process.Pid] {
		t.Errorf("--reclaim left %+v; want both reused PIDs reported, token-mismatch", rep.Sessions[0].Left)
	}
	if st, err := proc.ReadStat(stranger.Process.Pid); err != nil || !st.Live() {
		t.Fatalf("the stranger at the guard's PID: %v, %v; want it alive", st, err)
	}
}

// TestARelativeLedgerDirectoryTurnsTheLedgerOff: a relative
// SESSION_STARTER_LEDGER_DIR, or a relative XDG_RUNTIME_DIR, would name
// another directory from every working directory (the starter's is / once
// the Engine runs). A session then keeps no record and says why; a
// --reclaim refuses it, exit 125, and reads nothing.
func TestARelativeLedgerDirectoryTurnsTheLedgerOff(t *testing.T) {
	cwd := privateDir(t)
	if err := os.Mkdir(filepath.Join(cwd, "relled"), 0o700); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(binary, "--containment", "group", "--log-level", "info", "--", "true")
	cmd.Dir = cwd
	cmd.Env = append(os.Environ(), ledger.EnvDir+"=relled")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), ledger.EnvDir+"=relled is not an absolute path") {
		t.Fatalf("a session with %s=relled: %v, %q; want exit 0 and the ledger off, said", ledger.EnvDir, err, out)
	}
	if entries, _ := os.ReadDir(filepath.Join(cwd, "relled")); len(entries) != 0 {
		t.Fatalf("the session left %v in relled, want nothing", entries)
	}
	cmd = exec.Command(binary, "--reclaim")
	cmd.Dir = cwd
	cmd.Env = append(os.Environ(), ledger.EnvDir+"=relled")
	out, err = cmd.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 125 || !strings.Contains(string(out), "ledger: off: "+ledger.EnvDir+"=relled is not an absolute path") {
		t.Fatalf("--reclaim with %s=relled: %v, %q; want exit 125, the ledger off", ledger.EnvDir, err, out)
	}

	if os.Getuid() != 0 {
		t.Skip("XDG_RUNTIME_DIR is read for a user other than root: the test runs as nobody")
	}
	bin := forNobody(t, cwd)
	rel := filepath.Join(cwd, "run")
	if err := os.Mkdir(rel, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(rel, nobody, nobody); err != nil {
		t.Fatal(err)
	}
	cmd = exec.Command(bin, "--reclaim")
	cmd.Dir = cwd
	var env []string
	for _, e := range os.Environ() {
		if !strings.HasPrefix(e, ledger.EnvDir+"=") && !strings.HasPrefix(e, "XDG_RUNTIME_DIR=") {
			env = append(env, e)
		}
	}
	cmd.Env = append(env, "XDG_RUNTIME_DIR=run")
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
	out, err = cmd.CombinedOutput()
	if !errors.As(err, &ee) || ee.ExitCode() != 125 || !strings.Contains(string(out), "ledger: off: XDG_RUNTIME_DIR=run is not an absolute path") {
		t.Fatalf("--reclaim as nobody with XDG_RUNTIME_DIR=run: %v, %q; want exit 125, the ledger off", err, out)
	}
}

// forNobody opens dir, one of t.TempDir's, to every user, copies the
// binary into it and returns the copy's path: nobody may run it there.
func forNobody(t *testing.T, dir string) string {
	t.Helper()
	for _, d := range []string{filepath.Dir(dir), dir} { // t.TempDir's parent is 0700
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	bin := filepath.Join(dir, "session-starter")
	// The portable build's binary is a launcher that executes the product
	// beside it: the copy gets the product beside it too.
	for from, to := range map[string]string{binary: bin, productPath(binary): productPath(bin)} {
		b, err := os.ReadFile(from)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(to, b, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return bin
}

// TestALedgerRecordIsWrittenWhereProcHidesOtherUsersProcesses: with
// /proc mounted hidepid=invisible, a user's session cannot read PID 1's
// entry. Its record names its PID namespace's init by the pidfs inode
// alone, and is written.
func TestALedgerRecordIsWrittenWhereProcHidesOtherUsersProcesses(t *testing.T) {
	needsPIDNamespace(t) // root and unshare(1)
	if tok, err := ledger.TokenOf(os.Getpid()); err != nil || tok.Pidfs == 0 {
		t.Skip("pidfds are not in pidfs here (before Linux 6.9, or a 32-bit kernel)")
	}
	dir := privateDir(t)
	bin := forNobody(t, dir)
	led := filepath.Join(dir, "ledger")
	if err := os.Mkdir(led, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(led, nobody, nobody); err != nil {
		t.Fatal(err)
	}
	// A mount namespace of its own: the host's /proc is left as it is.
	cmd := exec.Command("unshare", "--mount", "--propagation", "private", "sh", "-c",
		`mount -t proc -o hidepid=invisible proc /proc && exec setpriv --reuid 65534 --regid 65534 --clear-groups "$0" --containment group --log-level info -- sh -c 'ls "$1"' sh "$1"`, bin, led)
	cmd.Env = append(os.Environ(), ledger.EnvDir+"="+led)
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), ".json") || strings.Contains(string(out), "no ledger record") {
		t.Fatalf("a session of nobody with /proc hidepid=invisible: %v, %q; want its record in the ledger", err, out)
	}
}

// sleeping counts the processes of pids that run sleep.
func sleeping(pids []int) int {
	n := 0
	for _, pid := range pids {
		if comm, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/comm"); err == nil && string(comm) == "sleep\n" {
			n++
		}
	}
	return n
}

// survivors counts the processes a reclaim left that were verified as a
// session's: those that make it exit 125.
func survivors(rep ledger.Report) int {
	n := 0
	for _, s := range rep.Sessions {
		for _, l := range s.Left {
			if l.Survivor {
				n++
			}
		}
	}
	return n
}
