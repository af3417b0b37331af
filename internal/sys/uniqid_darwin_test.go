package sys

import (
	"errors"
	"os"
	"os/exec"
	"testing"
)

// TestAChildsParentUniqueIDIsThisProcesss: proc_pidinfo is reached and
// decoded; the ids differ between processes and link child to parent.
func TestAChildsParentUniqueIDIsThisProcesss(t *testing.T) {
	self, err := ProcUniqueIDs(os.Getpid())
	if err != nil {
		t.Fatalf("ProcUniqueIDs(self) = %v", err)
	}
	cmd := exec.Command("/bin/sleep", "300")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	kid, err := ProcUniqueIDs(cmd.Process.Pid)
	if err != nil {
		t.Fatalf("ProcUniqueIDs(child) = %v", err)
	}
	if kid.Parent != self.Unique || kid.Unique == self.Unique || kid.Unique < self.Unique {
		t.Fatalf("child %+v, this process %+v: want the child's parent id to be this process's, and a later id of its own", kid, self)
	}
}

func TestTheUniqueIDsOfNoProcessAreGone(t *testing.T) {
	cmd := exec.Command("/usr/bin/true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	if ids, err := ProcUniqueIDs(cmd.Process.Pid); !errors.Is(err, ErrGone) {
		t.Fatalf("ProcUniqueIDs(reaped child) = %+v, %v; want ErrGone", ids, err)
	}
}
