package sys

import (
	"errors"
	"os"
	"os/exec"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
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

// TestSignalIdentifiedSignalsOnlyTheVersionRead: a PID version the child
// does not have reaches nothing (where libSystem has
// proc_signal_with_audittoken: macOS 14.4 and later); its own ends it.
func TestSignalIdentifiedSignalsOnlyTheVersionRead(t *testing.T) {
	cmd := exec.Command("/bin/sleep", "300")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
	})
	pid := cmd.Process.Pid
	fd, err := WatchExit(pid)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { Close(fd) })
	ids, err := ProcUniqueIDs(pid)
	if err != nil {
		t.Fatal(err)
	}
	if signalByToken() != 0 {
		if err := SignalIdentified(pid, ids.Version+1, fd, syscall.SIGKILL); !errors.Is(err, ErrGone) {
			t.Fatalf("SignalIdentified(another version) = %v, want ErrGone", err)
		}
		if err := unix.Kill(pid, 0); err != nil {
			t.Fatalf("the child after a signal to another version: %v", err)
		}
	} else {
		t.Log("no proc_signal_with_audittoken in this libSystem: signals go by number while the exit watch shows none")
	}
	if err := SignalIdentified(pid, ids.Version, fd, syscall.SIGKILL); err != nil {
		t.Fatalf("SignalIdentified(its version) = %v", err)
	}
	_ = cmd.Wait()
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || ws.Signal() != syscall.SIGKILL {
		t.Fatalf("the child ended %v; want SIGKILL", cmd.ProcessState)
	}
}
