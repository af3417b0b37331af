//go:build linux && !portable

package guard

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/session-starter/session-starter/internal/sys"
	"github.com/session-starter/session-starter/internal/sys/rawfork"
)

// withoutVerifier makes the raw guard's porch unable to execute the guard
// proper, for the rest of the test.
func withoutVerifier(t *testing.T) {
	t.Helper()
	if !rawSupported() {
		t.Skip("no raw guard on this kernel (it needs Linux 6.9)")
	}
	testOnlyUnexecutableVerifier = true
	t.Cleanup(func() { testOnlyUnexecutableVerifier = false })
}

// TestAFinishWithAZombieLeftInTheGroupIsDecidedByTheGuardProper: the
// porch's cheap test counts a zombie as a member (the group signal 0
// succeeds), so a finish while group E holds only the Engine's unreaped
// zombie is handed to the guard proper, which looks in /proc, finds no
// live member and exits 0. Where the porch cannot execute it, the porch
// cannot tell, and keeps guarding (the control).
func TestAFinishWithAZombieLeftInTheGroupIsDecidedByTheGuardProper(t *testing.T) {
	for _, verifier := range []bool{true, false} {
		t.Run(fmt.Sprintf("verifier=%v", verifier), func(t *testing.T) {
			if !verifier {
				withoutVerifier(t)
			} else if !rawSupported() {
				t.Skip("no raw guard on this kernel (it needs Linux 6.9)")
			}
			leader, g := armedOnAnEndedGroup(t, kind{"raw", false})
			if err := sys.PidfdSignalGroup(leader.Pidfd, 0); err != nil {
				t.Fatalf("the group holds the leader's zombie: %v", err)
			}
			err := g.Finish(2 * time.Second)
			switch {
			case verifier && err != nil:
				t.Fatalf("Finish with only a zombie left: %v, want the guard proper to see the group empty", err)
			case !verifier && !errors.Is(err, ErrNotFinished):
				t.Fatalf("Finish with only a zombie left and no guard proper: %v, want %v", err, ErrNotFinished)
			}
		})
	}
}

// TestWithoutTheGuardProperThePorchStillEndsTheGroup: once the starter is
// gone the porch strikes every holder, and where the guard proper cannot
// be executed (a seccomp profile, a runtime that cannot start under
// RLIMIT_NPROC) it goes on striking until the group is empty, then exits.
func TestWithoutTheGuardProperThePorchStillEndsTheGroup(t *testing.T) {
	withoutVerifier(t)
	leader, member := group(t)
	g := arm(t, leader, kind{"raw", false})
	starterGone(t, g, leader, member)
}

// TestThePorchsSlotsAreTheGuards: the porch puts the descriptors where
// the re-executed guard has them, so that the guard proper it executes
// finds them there.
func TestThePorchsSlotsAreTheGuards(t *testing.T) {
	for got, want := range map[int]int{
		rawfork.SlotGate: fdGate, rawfork.SlotFinish: fdFinish, rawfork.SlotStarter: fdStarter, rawfork.SlotArmed: fdArmed,
		rawfork.SlotTTY: fdTTY, rawfork.SlotCgroup: fdCgroup, rawfork.SlotCgroupP: fdCgroupP,
		rawfork.SlotLedger: fdLedger,
	} {
		if got != want {
			t.Errorf("porch slot %d, guard slot %d", got, want)
		}
	}
}
