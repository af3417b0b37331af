package ledger

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"syscall"
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

// write writes r into dir, through a descriptor of it as a session does.
func write(t *testing.T, dir string, r Record) error {
	t.Helper()
	fd, err := syscall.Open(dir, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Close(fd)
	return Write(fd, r)
}

// here is this process's namespaces, as a record of a session here names
// them.
func here(t *testing.T) *Namespaces {
	t.Helper()
	ns, err := Here()
	if err != nil {
		t.Fatal(err)
	}
	return ns
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
	if err := write(t, dir, r); err != nil {
		t.Fatal(err)
	}
	recs, probs, err := Read(dir)
	if err != nil || len(probs) != 0 || len(recs) != 1 || !reflect.DeepEqual(recs[0], r) {
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
	fd, err := syscall.Open(dir, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Close(fd)
	if err := Remove(fd, r.Session); err != nil {
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
	if err := write(t, dir, good); err != nil {
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
	if len(recs) != 1 || !reflect.DeepEqual(recs[0], good) {
		t.Errorf("Read took %+v, want only the good record", recs)
	}
	if len(probs) != len(bad)+2 {
		t.Errorf("Read reported %+v, want %d problems", probs, len(bad)+2)
	}
}

// Dir is OpenDir's directory, with its descriptor closed.
func Dir() (string, error) {
	dir, fd, err := OpenDir()
	if err == nil {
		syscall.Close(fd)
	}
	return dir, err
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
	for d, why := range map[string]string{link: "is a symlink", open: "is open to others"} {
		t.Setenv(EnvDir, d)
		if _, err := Dir(); !errors.Is(err, ErrOff) || !strings.Contains(err.Error(), why) {
			t.Errorf("Dir() with %s: %v, want the ledger off: %s", d, err, why)
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

// TestNoteEndSetsTheGuardsAccountAtomically: the record is rewritten
// whole with its guard_end, through the directory's descriptor, and no
// temporary file is left; a record that is not one to trust — torn, open
// to others, a symlink, named for another session — is left as it was,
// with an error.
func TestNoteEndSetsTheGuardsAccountAtomically(t *testing.T) {
	dir := private(t)
	r := record(t)
	if err := write(t, dir, r); err != nil {
		t.Fatal(err)
	}
	fd, err := syscall.Open(dir, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Close(fd)
	name := FileName(r.Session)
	if err := NoteEnd(fd, name, "session end survivors at now"); err != nil {
		t.Fatalf("NoteEnd: %v", err)
	}
	recs, probs, err := Read(dir)
	want := r
	want.GuardEnd = "session end survivors at now"
	if err != nil || len(probs) != 0 || len(recs) != 1 || !reflect.DeepEqual(recs[0], want) {
		t.Fatalf("Read after NoteEnd = %+v, %+v, %v; want %+v", recs, probs, err, want)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Fatalf("the directory holds %v, want the record alone", entries)
	}

	other := strings.Repeat("0b", 16)
	target := filepath.Join(t.TempDir(), "elsewhere")
	for _, c := range []struct {
		what  string
		setup func(path string) error
	}{
		{"torn", func(path string) error { return os.WriteFile(path, []byte(`{"version":1,`), 0o600) }},
		{"open to others", func(path string) error {
			if err := os.WriteFile(path, []byte("{}\n"), 0o600); err != nil {
				return err
			}
			return os.Chmod(path, 0o644)
		}},
		{"a symlink", func(path string) error {
			if err := os.WriteFile(target, []byte("{}\n"), 0o600); err != nil {
				return err
			}
			return os.Symlink(target, path)
		}},
		{"another session's", func(path string) error {
			o := r
			o.Session = other
			b, err := json.Marshal(o)
			if err != nil {
				return err
			}
			return os.WriteFile(path, b, 0o600)
		}},
	} {
		t.Run(c.what, func(t *testing.T) {
			d := private(t)
			path := filepath.Join(d, name)
			if err := c.setup(path); err != nil {
				t.Fatal(err)
			}
			before, _ := os.ReadFile(path)
			dfd, err := syscall.Open(d, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer syscall.Close(dfd)
			if err := NoteEnd(dfd, name, "x"); err == nil {
				t.Fatal("NoteEnd of a record not to trust: no error")
			}
			if after, _ := os.ReadFile(path); string(after) != string(before) {
				t.Fatalf("the file went from %q to %q", before, after)
			}
			if entries, _ := os.ReadDir(d); len(entries) != 1 {
				t.Fatalf("the directory holds %v, want the file alone", entries)
			}
		})
	}
}
