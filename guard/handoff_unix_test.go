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
		want := spec.handoff()
		if spec.Mark != "" && spec.Ledger > 2 && want.record != ledger.FileName(spec.Mark) {
			t.Errorf("%+v: the record is %q", spec, want.record)
		}
		argv := append([]string{"session-starter", arg}, want.args()...)
		if got, ok := parseArgs(argv); !ok || got != want {
			t.Errorf("parseArgs(%q) = %+v, %v; want %+v", argv, got, ok, want)
		}
		// The porch's form: the mode, and the number it fills in.
		args := want.args()
		args[numAt] = strconv.FormatInt(want.num, 10)
		argv = append([]string{"session-starter", verifyArg, verifyGone}, args...)
		if mode, got, ok := parseVerifyArgs(argv); !ok || mode != verifyGone || got != want {
			t.Errorf("parseVerifyArgs(%q) = %q, %+v, %v; want %+v", argv, mode, got, ok, want)
		}
		if _, ok := parseArgs(append(slices.Clone(argv[:2]), want.args()[:6]...)); ok {
			t.Errorf("a hand-off without its last argument was read")
		}
	}
}
