//go:build darwin || freebsd || linux

package guard

import (
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/session-starter/session-starter/internal/cgroup"
	"github.com/session-starter/session-starter/internal/ledger"
	"github.com/session-starter/session-starter/internal/mark"
	"github.com/session-starter/session-starter/internal/wire"
)

// TestTheGuardReadsBackEveryHandoffItWrites: what the starter writes on a
// guard's command line, in each form, reads back as the same hand-off.
func TestTheGuardReadsBackEveryHandoffItWrites(t *testing.T) {
	id, err := mark.New()
	if err != nil {
		t.Fatal(err)
	}
	for _, spec := range []Spec{
		{PGID: 42, Budget: time.Second},
		{PGID: 42, Budget: time.Second, TTY: 7, TTYGroup: 41},
		{PGID: 42, Budget: time.Second, Cgroup: 8, CgroupParent: 9, CgroupName: cgroup.Name(42, 1234, 1)},
		{PGID: 42, Budget: time.Second, Mark: id.String(), MarkSince: 123, Ledger: 10},
		{PGID: 42, Budget: time.Second, Mark: id.String(), MarkSince: 123, Release: true},
	} {
		if spec.Mark != "" && spec.Ledger > 2 && spec.record() != ledger.FileName(spec.Mark) {
			t.Errorf("%+v: the record is %q", spec, spec.record())
		}
		want := atSlots(spec)
		argv := append([]string{"session-starter", arg}, spec.args()...)
		if mode, got, ok := parseArgs(argv); !ok || mode != "" || got != want {
			t.Errorf("parseArgs(%q) = %q, %+v, %v; want %+v", argv, mode, got, ok, want)
		}
		// The porch's form: the mode, and the number it fills in.
		args := spec.args()
		args[numAt] = strconv.FormatInt(int64(spec.Budget), 10)
		argv = append([]string{"session-starter", verifyArg, verifyGone}, args...)
		if mode, got, ok := parseArgs(argv); !ok || mode != verifyGone || got != want {
			t.Errorf("parseArgs(%q) = %q, %+v, %v; want %+v", argv, mode, got, ok, want)
		}
		if _, _, ok := parseArgs(append(slices.Clone(argv[:2]), spec.args()[:6]...)); ok {
			t.Errorf("a hand-off without its last argument was read")
		}
	}
}

// atSlots is spec as the guard reads it: what it names, with each of its
// descriptors at its slot.
func atSlots(spec Spec) Spec {
	want := Spec{PGID: spec.PGID, Budget: spec.Budget, Mark: spec.Mark, MarkSince: spec.MarkSince, Release: spec.Release}
	if spec.TTY > 0 {
		want.TTY, want.TTYGroup = wire.SlotTTY, spec.TTYGroup
	}
	if spec.Cgroup > 2 {
		want.Cgroup, want.CgroupParent, want.CgroupName = wire.SlotCgroup, wire.SlotCgroupP, spec.CgroupName
	}
	if spec.Mark != "" && spec.Ledger > 2 {
		want.Ledger = wire.SlotLedger
	}
	return want
}

// TestTheGuardRefusesAHandoffWithAnyFieldMalformed: each field of the
// hand-off that is not what the starter writes refuses the whole of it.
func TestTheGuardRefusesAHandoffWithAnyFieldMalformed(t *testing.T) {
	id, err := mark.New()
	if err != nil {
		t.Fatal(err)
	}
	spec := Spec{PGID: 42, Budget: time.Second, TTY: 7, TTYGroup: 41, Cgroup: 8, CgroupParent: 9,
		CgroupName: cgroup.Name(42, 1234, 1), Mark: id.String(), MarkSince: 123, Ledger: 10, Release: true}
	good := spec.args()
	if _, ok := parseHandoff(good); !ok {
		t.Fatalf("parseHandoff(%q) refused the starter's own hand-off", good)
	}
	for _, c := range []struct {
		field int
		bad   string
	}{
		{0, "1"}, {0, "x"}, // the group: a number above 1
		{1, "x"},           // the ledger's number
		{2, "1"}, {2, "x"}, // the terminal's group
		{3, "not-a-cgroup"},                 // the session cgroup's name
		{4, "x@1"}, {4, id.String() + "@x"}, // the mark argument
		{5, "maybe"},      // the release
		{6, "other.json"}, // the ledger record: its session's only
	} {
		args := slices.Clone(good)
		args[c.field] = c.bad
		if h, ok := parseHandoff(args); ok {
			t.Errorf("parseHandoff with field %d %q = %+v, ok; want refused", c.field, c.bad, h)
		}
	}
	// A record without a mark names no session: refused.
	args := slices.Clone(good)
	args[4] = "-"
	if h, ok := parseHandoff(args); ok {
		t.Errorf("parseHandoff with a record and no mark = %+v, ok; want refused", h)
	}
}
