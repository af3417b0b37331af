package ledger

import (
	"os/exec"
	"testing"

	"github.com/session-starter/session-starter/internal/sys"
)

// TestATokenReadThroughAHeldPidfdIsTheTokenByPIDAndLeavesThePidfdOpen:
// a child's token read through the pidfd its parent holds is the one
// read by its PID alone, and the pidfd stays the parent's: still open,
// still naming the child.
func TestATokenReadThroughAHeldPidfdIsTheTokenByPIDAndLeavesThePidfdOpen(t *testing.T) {
	cmd := exec.Command("sleep", "600")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	pid := cmd.Process.Pid // our unreaped child: the PID names it
	fd, err := sys.PidfdOpen(pid)
	if err != nil {
		t.Fatal(err)
	}
	defer sys.Close(fd)
	held, err := TokenOfPidfd(pid, fd)
	if err != nil {
		t.Fatal(err)
	}
	byPID, err := TokenOf(pid)
	if err != nil {
		t.Fatal(err)
	}
	if held != byPID {
		t.Fatalf("through the held pidfd: %+v; by the PID: %+v", held, byPID)
	}
	if pidfsInode(fd) != held.Pidfs {
		t.Fatalf("the held pidfd no longer names the child (inode %d, token %+v)", pidfsInode(fd), held)
	}
	if _, err := sys.Fstat(fd); err != nil {
		t.Fatalf("the held pidfd: %v", err)
	}
}
