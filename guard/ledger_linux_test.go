package guard

import (
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/session-starter/session-starter/internal/ledger"
	"github.com/session-starter/session-starter/internal/mark"
	"github.com/session-starter/session-starter/internal/proc"
)

// TestAGuardThatEmptiedTheSessionRemovesItsRecordAndNothingElse: the
// starter gone, each kind of guard ends the group, then removes the
// session's record from the ledger directory it was given, and no other
// file there.
func TestAGuardThatEmptiedTheSessionRemovesItsRecordAndNothingElse(t *testing.T) {
	kinds(t, func(t *testing.T, k kind) {
		leader, member := group(t)
		id, err := mark.New()
		if err != nil {
			t.Fatal(err)
		}
		st, err := proc.ReadStat(leader.PID)
		if err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		record := filepath.Join(dir, ledger.FileName(id.String()))
		// Another session's: the last digit changed (a fixed "00" would be
		// this one's own one time in 256).
		last := map[bool]string{true: "1", false: "0"}[id.String()[31] == '0']
		other := filepath.Join(dir, ledger.FileName(id.String()[:31]+last))
		for _, f := range []string{record, other} {
			if err := os.WriteFile(f, []byte("{}\n"), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		fd, err := syscall.Open(dir, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer syscall.Close(fd)
		t.Setenv("GORACE", "atexit_sleep_ms=0")
		exe, err := os.Executable()
		if err != nil {
			t.Fatal(err)
		}
		g, err := armSpec(Spec{Exe: exe, GatePidfd: leader.Pidfd, PGID: leader.PID, Budget: 10 * time.Second, ReExec: k.reExec,
			Mark: id.String(), MarkSince: st.StartTime, Ledger: fd})
		if err != nil {
			t.Fatalf("Arm: %v", err)
		}
		starterGone(t, g, leader, member)
		if _, err := os.Lstat(record); !os.IsNotExist(err) {
			t.Errorf("the session's record after the guard's end: %v; want it removed", err)
		}
		if _, err := os.Lstat(other); err != nil {
			t.Errorf("another session's record: %v; want it kept", err)
		}
	})
}

// TestTheGuardRefusesARecordNameNotItsSessions: the guard's command line
// names the record, and one that is not the mark's is refused, so that a
// guard removes no other file.
func TestTheGuardRefusesARecordNameNotItsSessions(t *testing.T) {
	id, err := mark.New()
	if err != nil {
		t.Fatal(err)
	}
	markArg := id.String() + "@1"
	// Another session's id: the last digit changed (a fixed "00" would be
	// this id's own one time in 256).
	other := id.String()[:31] + map[bool]string{true: "1", false: "0"}[id.String()[31] == '0']
	for _, tt := range []struct {
		record string
		ok     bool
	}{
		{"-", true},
		{ledger.FileName(id.String()), true},
		{ledger.FileName(other), false},
		{"../" + ledger.FileName(id.String()), false},
		{id.String(), false},
	} {
		args := []string{"session-starter", arg, "42", strconv.Itoa(int(time.Second)), "-", "-", markArg, "-", tt.record}
		if _, _, ok := parseArgs(args); ok != tt.ok {
			t.Errorf("parseArgs(record %q) ok = %v, want %v", tt.record, ok, tt.ok)
		}
	}
	noMark := []string{"session-starter", arg, "42", strconv.Itoa(int(time.Second)), "-", "-", "-", "-", ledger.FileName(id.String())}
	if _, _, ok := parseArgs(noMark); ok {
		t.Error("a record without a mark: accepted")
	}
}
