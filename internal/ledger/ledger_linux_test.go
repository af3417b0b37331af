package ledger

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func private(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	return dir
}

func record(t *testing.T) Record {
	t.Helper()
	tok, err := TokenOf(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	p := Process{PID: os.Getpid(), Token: tok}
	return Record{Version: Version, BootID: "b", Session: strings.Repeat("0a", 16), UID: os.Getuid(), Mode: "group", Created: Now(), Starter: p, Guard: p, Engine: p, PGID: 1}
}

// TestARecordWrittenIsReadBackWhole: Write then Read give the record, and
// no temporary file is left.
func TestARecordWrittenIsReadBackWhole(t *testing.T) {
	dir := private(t)
	r := record(t)
	if err := Write(dir, r); err != nil {
		t.Fatal(err)
	}
	recs, probs, err := Read(dir)
	if err != nil || len(probs) != 0 || len(recs) != 1 || recs[0] != r {
		t.Fatalf("Read = %+v, %v, %v; want %+v", recs, probs, err, r)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Fatalf("the ledger holds %v, want the one record", entries)
	}
	fi, err := os.Stat(filepath.Join(dir, FileName(r.Session)))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("the record: %v, %v; want mode 0600", fi, err)
	}
	if err := Remove(dir, r.Session); err != nil {
		t.Fatal(err)
	}
	if recs, _, _ := Read(dir); len(recs) != 0 {
		t.Fatalf("after Remove, Read = %+v", recs)
	}
}

// TestRecordsThatCannotBeTrustedAreProblemsNotRecords: torn, of another
// version or user, with data after it, under another name, open to
// others, behind a symlink.
func TestRecordsThatCannotBeTrustedAreProblemsNotRecords(t *testing.T) {
	dir := private(t)
	good := record(t)
	if err := Write(dir, good); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(filepath.Join(dir, FileName(good.Session)))
	other := func(s string) string { return strings.Repeat(s, 32) + ".json" }
	bad := map[string]string{
		other("1"): string(b[:len(b)/2]),
		other("2"): strings.Replace(string(b), `"version":1`, `"version":2`, 1),
		other("3"): strings.Replace(string(b), `"uid":`+strconv.Itoa(os.Getuid()), `"uid":4242`, 1),
		other("4"): string(b) + "{}",
		other("5"): string(b), // its session is not its name
		other("6"): strings.Replace(string(b), `"mode"`, `"unknown":1,"mode"`, 1),
	}
	for n, content := range bad {
		if err := os.WriteFile(filepath.Join(dir, n), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	open := other("7")
	if err := os.WriteFile(filepath.Join(dir, open), b, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(dir, FileName(good.Session)), filepath.Join(dir, other("8"))); err != nil {
		t.Fatal(err)
	}
	recs, probs, err := Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 1 || recs[0] != good {
		t.Errorf("Read took %+v, want only the good record", recs)
	}
	if len(probs) != len(bad)+2 {
		t.Errorf("Read reported %+v, want %d problems", probs, len(bad)+2)
	}
}

// TestADirectoryThatIsNotPrivateTurnsTheLedgerOff: a symlink, or a
// directory open to others.
func TestADirectoryThatIsNotPrivateTurnsTheLedgerOff(t *testing.T) {
	real := private(t)
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	open := t.TempDir()
	if err := os.Chmod(open, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{link, open} {
		t.Setenv(EnvDir, d)
		if _, err := Dir(); err == nil {
			t.Errorf("Dir() with %s: nil, want the ledger off", d)
		}
	}
	t.Setenv(EnvDir, real)
	if got, err := Dir(); err != nil || got != real {
		t.Errorf("Dir() = %q, %v; want %q", got, err, real)
	}
}

// TestATokenTellsItsProcessFromOneAfterIt: a live process's own token
// says alive; a process that exited and was reaped is gone, whatever now
// has its PID.
func TestATokenTellsItsProcessFromOneAfterIt(t *testing.T) {
	tok, err := TokenOf(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if !Alive(os.Getpid(), tok) {
		t.Fatal("this process's own token: not alive")
	}
	cmd := exec.Command("sleep", "600")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	child, err := TokenOf(cmd.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	if !Alive(cmd.Process.Pid, child) {
		t.Fatal("a live child's token: not alive")
	}
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	if Alive(cmd.Process.Pid, child) {
		t.Fatal("a reaped child's token: alive")
	}
	if Alive(os.Getpid(), Token{Start: tok.Start + 1}) {
		t.Fatal("this PID with another start: alive")
	}
}
