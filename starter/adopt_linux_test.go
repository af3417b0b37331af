package starter

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"syscall"
	"testing"

	"github.com/session-starter/session-starter/internal/end"
	"github.com/session-starter/session-starter/internal/testproc"
)

// The Engine's number is spared by the sweep only while the Engine is
// unreaped: once reaped, a new child with that number (an escapee's
// orphan that got it back) is adopted and ended like any other.
func TestANewChildWithTheReapedEnginesNumberIsTheSweeps(t *testing.T) {
	c := testproc.StartLeader(t, os.Stdout, "/bin/sleep", "600")
	s := &session{engine: &end.Process{PID: c.PID, Pidfd: c.Pidfd, Child: true}}
	if !s.notAdopted(c.PID) {
		t.Fatal("the unreaped Engine is taken as an adopted child")
	}
	if err := syscall.Kill(c.PID, syscall.SIGKILL); err != nil { // our unreaped child
		t.Fatal(err)
	}
	if _, err := s.engine.Reap(testproc.TooLong); err != nil {
		t.Fatal(err)
	}
	if s.notAdopted(c.PID) {
		t.Fatal("after the Engine's reap its number is still spared by the sweep")
	}
}

// Children the starter had before the gate are not the session's: never
// adopted, reaped when they exit, and their number forgotten then.
func TestChildrenFromBeforeTheSessionAreReapedButNeverAdopted(t *testing.T) {
	c := testproc.StartLeader(t, os.Stdout, "/bin/sleep", "600")
	s := &session{}
	s.adopt.before = map[int]bool{c.PID: true}
	if !s.notAdopted(c.PID) {
		t.Fatal("a child from before the session is taken as adopted")
	}
	if err := syscall.Kill(c.PID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if !c.Exited(testproc.TooLong) {
		t.Fatal("the child did not exit")
	}
	if n, _, _ := s.reapAdopted(); n != 1 {
		t.Fatalf("reapAdopted() = %d, want the exited child reaped", n)
	}
	if s.notAdopted(c.PID) {
		t.Fatal("the reaped child's number is still spared")
	}
}

// A listing of the children that fails at the start fails the start: a
// child from before the session missing from the record would be taken
// later for an adopted escapee and signalled.
func TestAFailedListingOfTheChildrenAtTheStartIsAnError(t *testing.T) {
	enomem := fmt.Errorf("sysctl kern.proc.proc: %w", syscall.ENOMEM)
	before, err := beforeSession(func() ([]int, error) { return nil, enomem })
	if !errors.Is(err, syscall.ENOMEM) || before != nil {
		t.Fatalf("beforeSession(failing listing) = %v, %v; want the listing's error", before, err)
	}
	before, err = beforeSession(func() ([]int, error) { return []int{7, 9}, nil })
	if err != nil || !before[7] || !before[9] || len(before) != 2 {
		t.Fatalf("beforeSession([7 9]) = %v, %v; want both recorded", before, err)
	}
}

// everyChild lists a child this process has, with no error for the
// threads it lists.
func TestEveryChildListsAChildThisProcessHas(t *testing.T) {
	c := testproc.StartLeader(t, os.Stdout, "/bin/sleep", "600")
	pids, err := everyChild()
	if err != nil {
		t.Fatalf("everyChild() = %v", err)
	}
	if !slices.Contains(pids, c.PID) {
		t.Fatalf("everyChild() = %v, want %d among them", pids, c.PID)
	}
}
