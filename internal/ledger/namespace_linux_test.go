package ledger

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/session-starter/session-starter/internal/mark"
)

// deadRecord writes the record of a session whose starter and guard are
// gone and whose Engine is a live sleeper, of the namespaces ns (as
// written, nil for none), and returns it with the Engine.
func deadRecord(t *testing.T, dir string, version int, ns *Namespaces) (Record, *exec.Cmd) {
	t.Helper()
	engine := exec.Command("/bin/sleep", "600")
	if err := engine.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = engine.Process.Kill(); _ = engine.Wait() })
	tok, err := TokenOf(engine.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	boot, err := BootID()
	if err != nil {
		t.Fatal(err)
	}
	id, err := mark.New()
	if err != nil {
		t.Fatal(err)
	}
	none := Process{PID: 1 << 22, Token: Token{Start: 1}} // above pid_max: no process
	r := Record{Version: version, BootID: boot, Session: id.String(), UID: os.Getuid(), Mode: "group", Created: Now(),
		Starter: none, Guard: none, Engine: Process{PID: engine.Process.Pid, Token: tok}, PGID: engine.Process.Pid, NS: ns}
	if err := write(t, dir, r); err != nil {
		t.Fatal(err)
	}
	return r, engine
}

// TestARecordOfOtherNamespacesIsReportedAndNeverActedOn: a record of
// version 1 (no namespace named), or of this PID namespace but another
// cgroup or user namespace, is reported other-namespace with the reason;
// its Engine, alive here at its PID with its token, is not signalled and
// the record stays.
func TestARecordOfOtherNamespacesIsReportedAndNeverActedOn(t *testing.T) {
	cgroup, user := *here(t), *here(t)
	cgroup.Cgroup++
	user.User++
	for _, c := range []struct {
		name    string
		version int
		ns      *Namespaces
		reason  string
	}{
		{"version 1", 1, nil, "version 1 record: names no namespace"},
		{"cgroup", Version, &cgroup, "cgroup namespace"},
		{"user", Version, &user, "user namespace"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := private(t)
			t.Setenv(EnvDir, dir)
			r, engine := deadRecord(t, dir, c.version, c.ns)
			rep, err := Reclaim(context.Background(), false)
			if err != nil || len(rep.Sessions) != 1 || rep.Sessions[0].Action != "other-namespace" || len(rep.Sessions[0].Ended) != 0 ||
				len(rep.Sessions[0].Left) != 1 || !strings.HasSuffix(rep.Sessions[0].Left[0].Reason, c.reason) {
				t.Fatalf("Reclaim = %+v, %v; want the record other-namespace (%s), nothing ended", rep, err, c.reason)
			}
			if !Alive(engine.Process.Pid, r.Engine.Token) {
				t.Fatal("the Engine the record names was signalled")
			}
			if _, err := os.Lstat(filepath.Join(dir, FileName(r.Session))); err != nil {
				t.Fatalf("the record: %v; want it kept", err)
			}
		})
	}
}

// TestARecordOfAnEarlierNamespaceOfThisNumberIsDropped: a record whose
// PID namespace has this one's inode number but whose init is not this
// one's PID 1 is of a namespace gone since (the number named it then).
// It is dropped, namespace-gone, and nothing signalled.
func TestARecordOfAnEarlierNamespaceOfThisNumberIsDropped(t *testing.T) {
	dir := private(t)
	t.Setenv(EnvDir, dir)
	ns := here(t)
	ns.PID.Init = Token{Start: ns.PID.Init.Start + 1, Pidfs: ns.PID.Init.Pidfs + 1}
	r, engine := deadRecord(t, dir, Version, ns)
	rep, err := Reclaim(context.Background(), true)
	if err != nil || len(rep.Sessions) != 1 || rep.Sessions[0].Action != "namespace-gone" {
		t.Fatalf("Reclaim(dry) = %+v, %v; want the record namespace-gone", rep, err)
	}
	if _, err := os.Lstat(filepath.Join(dir, FileName(r.Session))); err != nil {
		t.Fatalf("the record after a dry run: %v; want it kept", err)
	}
	reclaimDropsUntouched(t, dir, r, engine)
}

// TestARecordOfADescendantNamespaceIsKeptUntilItsInitIsSeenToDie: a
// record naming another PID namespace whose init is alive here is a
// descendant's, kept other-namespace; a reclaim that is not dry notes
// this namespace in its SeenFrom. Once that init is gone the namespace
// is gone with every process of it: the record is dropped,
// namespace-gone, and nothing is signalled.
func TestARecordOfADescendantNamespaceIsKeptUntilItsInitIsSeenToDie(t *testing.T) {
	dir := private(t)
	t.Setenv(EnvDir, dir)
	init := exec.Command("/bin/sleep", "600") // stands in for the descendant's PID 1
	if err := init.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = init.Process.Kill(); _ = init.Wait() })
	tok, err := TokenOf(init.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	ns := here(t)
	home := ns.PID
	ns.PID = PIDNamespace{Inode: home.Inode + 1, Init: tok}
	r, engine := deadRecord(t, dir, Version, ns)
	seenFrom := func() []PIDNamespace {
		b, err := os.ReadFile(filepath.Join(dir, FileName(r.Session)))
		if err != nil {
			t.Fatal(err)
		}
		var got Record
		if err := json.Unmarshal(b, &got); err != nil {
			t.Fatal(err)
		}
		return got.SeenFrom
	}
	for _, dry := range []bool{true, false} {
		rep, err := Reclaim(context.Background(), dry)
		if err != nil || len(rep.Sessions) != 1 || rep.Sessions[0].Action != "other-namespace" || len(rep.Sessions[0].Left) != 1 ||
			rep.Sessions[0].Left[0].Reason != "other-namespace: pid namespace (a descendant's)" {
			t.Fatalf("Reclaim(dry %v) = %+v, %v; want the record other-namespace, a descendant's", dry, rep, err)
		}
		want := []PIDNamespace(nil)
		if !dry {
			want = []PIDNamespace{home}
		}
		if got := seenFrom(); !slices.Equal(got, want) {
			t.Fatalf("after Reclaim(dry %v) the record is seen from %v, want %v", dry, got, want)
		}
	}
	_ = init.Process.Kill()
	_ = init.Wait()
	reclaimDropsUntouched(t, dir, r, engine)
}

// reclaimDropsUntouched reclaims dir and wants r, its one record, dropped
// as namespace-gone, nothing ended, and the process at its Engine's PID
// alive.
func reclaimDropsUntouched(t *testing.T, dir string, r Record, engine *exec.Cmd) {
	t.Helper()
	rep, err := Reclaim(context.Background(), false)
	if err != nil || len(rep.Sessions) != 1 || rep.Sessions[0].Action != "namespace-gone" || len(rep.Sessions[0].Ended) != 0 {
		t.Fatalf("Reclaim = %+v, %v; want the record namespace-gone, nothing ended", rep, err)
	}
	if !Alive(engine.Process.Pid, r.Engine.Token) {
		t.Fatal("the process at the record's Engine PID was signalled")
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Fatalf("the ledger holds %v, want nothing", entries)
	}
}
