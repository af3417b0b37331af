package main

// The guard and the ledger: a guard that ends a session after its starter
// was SIGKILLed removes the session's record, once nothing is left, and
// keeps it when something is.

import (
	le "encoding/binary"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/session-starter/session-starter/internal/ledger"
	"github.com/session-starter/session-starter/internal/proc"
	"github.com/session-starter/session-starter/internal/testproc"
	"golang.org/x/sys/unix"
)

// recordOf waits for the session's one ledger record in dir and returns
// its session id.
func recordOf(t *testing.T, dir string) string {
	t.Helper()
	var recs []ledger.Record
	testproc.Eventually(t, "the session must have its ledger record", func() bool {
		recs, _, _ = ledger.Read(dir)
		return len(recs) == 1
	})
	return recs[0].Session
}

// TestTheGuardRemovesTheRecordOfASessionItEndedAfterTheStarterWasKilled:
// the starter SIGKILLed in group and in cgroup mode, the guard ends the
// session — a setsid escapee included — and then removes its record:
// nothing is left for a reclaim.
func TestTheGuardRemovesTheRecordOfASessionItEndedAfterTheStarterWasKilled(t *testing.T) {
	for _, mode := range []string{"group", "cgroup"} {
		t.Run(mode, func(t *testing.T) {
			if mode == "cgroup" {
				needsCgroup(t)
			}
			if portable {
				t.Skip("the portable build verifies no mark (macOS's paths have no pidfd)")
			}
			mark := newMark(t)
			dir, opt := withLedger(t)
			s := start(t, mark, []string{"--containment", mode, "--ack", "--", "sh", "-c", setsidEscape + ` read x`}, opt)
			pid := s.ack()
			escaped(t, s, pid)
			session := recordOf(t, dir)
			guard := pidfdOf(t, guardOf(t, s.cmd.Process.Pid))
			s.signal(syscall.SIGKILL)
			s.wait()
			awaitExit(t, guard, "the guard must exit once it has ended the session")
			noSurvivors(t, mark)
			if _, err := os.Lstat(filepath.Join(dir, ledger.FileName(session))); !os.IsNotExist(err) {
				t.Fatalf("the record of the session the guard ended: %v; want it removed", err)
			}
		})
	}
}

// TestTheGuardKeepsTheRecordOfASessionItCouldNotEmpty: a member of group
// E that SIGKILL cannot end — it waits, uninterruptibly, for a FUSE file
// system whose server (this test) read its request and never answers —
// outlives the guard's end; the guard then keeps the session's record and
// writes into it what its end came to, naming the member. Once the server
// lets go, the member dies, and a reclaim finds the record, reports the
// guard's account and removes it.
func TestTheGuardKeepsTheRecordOfASessionItCouldNotEmpty(t *testing.T) {
	if portable {
		t.Skip("the portable build verifies no mark (macOS's paths have no pidfd)")
	}
	fuse, helper := hungFUSE(t)
	mark := newMark(t)
	dir, opt := withLedger(t)
	path := fmt.Sprintf("/proc/%d/root%s/x", helper, fuseMount)
	s := start(t, mark, []string{"--containment", "group", "--kill-budget", "1s", "--ack", "--", "sh", "-c", `stat ` + path + ` & read x`}, opt)
	s.ack()
	session := recordOf(t, dir)
	stuck := awaitFUSERequest(t, fuse)
	guard := pidfdOf(t, guardOf(t, s.cmd.Process.Pid))
	s.signal(syscall.SIGKILL)
	s.wait()
	awaitExit(t, guard, "the guard must exit once its budget has passed")
	if st, err := proc.ReadStat(stuck); err != nil || st.State != 'D' {
		t.Fatalf("the member waiting on FUSE (%d): %v, %v; want it alive, in uninterruptible sleep", stuck, st, err)
	}
	if _, err := os.Lstat(filepath.Join(dir, ledger.FileName(session))); err != nil {
		t.Fatalf("the record of the session the guard could not empty: %v; want it kept", err)
	}
	recs, probs, err := ledger.Read(dir)
	if err != nil || len(recs) != 1 || len(probs) != 0 {
		t.Fatalf("the kept ledger: %+v, %+v, %v; want its one record, whole", recs, probs, err)
	}
	account := fmt.Sprintf("session end survivors: still live: pid %d ", stuck)
	if !strings.HasPrefix(recs[0].GuardEnd, account) {
		t.Fatalf("the record's guard_end = %q, want the guard's account, beginning %q", recs[0].GuardEnd, account)
	}

	// A reclaim now cannot end it either: a survivor, verified as the
	// session's, exit 125, and the record stays for the next.
	out, rep, code := reclaimCmd(t, dir)
	if code != 125 || len(rep.Sessions) != 1 || survivors(rep) != 1 ||
		!slices.Contains(rep.Sessions[0].Left, ledger.LeftProcess{PID: stuck, Reason: "survivor: SIGKILL did not end it within 10s", Survivor: true}) ||
		slices.ContainsFunc(rep.Sessions[0].Ended, func(e ledger.Ended) bool { return e.PID == stuck }) {
		t.Fatalf("--reclaim with the member stuck: exit %d, %q, %+v; want 125 and it left, a survivor", code, out, rep)
	}
	if _, err := os.Lstat(filepath.Join(dir, ledger.FileName(session))); err != nil {
		t.Fatalf("the record after a reclaim that left a survivor: %v; want it kept", err)
	}

	fuse.Close() // the connection is aborted: the waiting member dies
	noSurvivors(t, mark)
	out, rep, code = reclaimCmd(t, dir)
	if code != 0 || len(rep.Sessions) != 1 || rep.Sessions[0].Action != "reclaimed" {
		t.Fatalf("--reclaim: exit %d, %q, %+v; want the kept record reclaimed", code, out, rep)
	}
	if rep.Sessions[0].GuardEnd != recs[0].GuardEnd || !strings.Contains(out, "its guard's end: "+recs[0].GuardEnd) {
		t.Fatalf("--reclaim: %q, %+v; want the guard's account %q printed and reported", out, rep, recs[0].GuardEnd)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Fatalf("after the reclaim the ledger holds %v, want nothing", entries)
	}
}

// fuseMount is where hungFUSE mounts its file system, in a mount
// namespace of its helper's.
const fuseMount = "/mnt"

// hungFUSE mounts a FUSE file system served by this test, in a private
// mount namespace of a helper process (nothing of the host's mounts
// changes), and answers its INIT; the file system is then reached at
// /proc/HELPER/root/mnt. It returns the server's end of /dev/fuse (opened
// non-blocking: readFUSE bounds its wait) and the helper's PID. Closing
// the server's end aborts the connection: every request waiting on it
// fails. Root only.
func hungFUSE(t *testing.T) (*fuseServer, int) {
	t.Helper()
	if os.Getuid() != 0 {
		t.Skip("mounting a FUSE file system needs root")
	}
	fd, err := syscall.Open("/dev/fuse", syscall.O_RDWR|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	if err != nil {
		t.Skipf("no /dev/fuse: %v", err)
	}
	fuse := &fuseServer{fd: fd}
	t.Cleanup(fuse.Close)
	// The helper mounts with the descriptor at 3, closes it (the test's
	// is then the connection's only server end) and holds the namespace.
	helper := exec.Command("unshare", "--mount", "--propagation", "private", "sh", "-c",
		`mount -t fuse -o fd=3,rootmode=40000,user_id=0,group_id=0 session-starter-test `+fuseMount+` && exec 3>&- && echo mounted && exec sleep 600`)
	dup, err := unix.FcntlInt(uintptr(fd), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	server := os.NewFile(uintptr(dup), "/dev/fuse")
	defer server.Close()
	helper.ExtraFiles = []*os.File{server}
	out, err := helper.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := helper.Start(); err != nil {
		t.Skipf("unshare: %v", err)
	}
	t.Cleanup(func() { _ = helper.Process.Kill(); _ = helper.Wait() })
	line := make([]byte, len("mounted\n"))
	if _, err := out.Read(line); err != nil || string(line) != "mounted\n" {
		t.Skipf("no FUSE mount in a private namespace: %q, %v", line, err)
	}
	// INIT: answer with protocol 7.31 and nothing enabled.
	req := readFUSE(t, fuse)
	if op := le.LittleEndian.Uint32(req[4:]); op != fuseInit {
		t.Fatalf("first FUSE request: opcode %d, want INIT", op)
	}
	initOut := make([]byte, 64) // fuse_init_out
	le.LittleEndian.PutUint32(initOut[0:], 7)
	le.LittleEndian.PutUint32(initOut[4:], 31)
	le.LittleEndian.PutUint32(initOut[20:], 4096) // max_write
	reply := make([]byte, 16, 16+len(initOut))    // fuse_out_header
	le.LittleEndian.PutUint32(reply[0:], uint32(16+len(initOut)))
	copy(reply[8:16], req[8:16]) // unique
	if _, err := syscall.Write(fuse.fd, append(reply, initOut...)); err != nil {
		t.Fatalf("FUSE INIT reply: %v", err)
	}
	return fuse, helper.Process.Pid
}

// fuseServer is the server's end of /dev/fuse.
type fuseServer struct {
	fd     int
	closed bool
}

// Close closes the server's end, once: the connection is aborted.
func (f *fuseServer) Close() {
	if !f.closed {
		f.closed = true
		_ = syscall.Close(f.fd)
	}
}

// fuseInit is the opcode of FUSE_INIT.
const fuseInit = 26

// readFUSE reads one request off the server's end, waiting for one up to
// testproc.TooLong (the descriptor is non-blocking; the Go runtime cannot
// poll it for us).
func readFUSE(t *testing.T, fuse *fuseServer) []byte {
	t.Helper()
	fd := fuse.fd
	buf := make([]byte, 1<<17) // more than the kernel's smallest read size
	deadline := time.Now().Add(testproc.TooLong)
	for {
		n, err := syscall.Read(fd, buf)
		if err == nil && n >= 40 {
			return buf[:n]
		}
		if err != syscall.EAGAIN && err != syscall.EINTR || time.Now().After(deadline) {
			t.Fatalf("reading a FUSE request: %d bytes, %v", n, err)
		}
		fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
		_, _ = unix.Poll(fds, int(time.Until(deadline)/time.Millisecond)+1)
	}
}

// awaitFUSERequest reads the next request and returns the PID of the
// process that made it: from now on it waits for an answer that never
// comes, and a SIGKILL leaves it waiting (the kernel waits out a request
// already read by the server).
func awaitFUSERequest(t *testing.T, fuse *fuseServer) int {
	t.Helper()
	req := readFUSE(t, fuse)
	pid := int(le.LittleEndian.Uint32(req[32:])) // fuse_in_header.pid
	if st, err := proc.ReadStat(pid); err != nil || !strings.Contains(st.Comm, "stat") {
		t.Fatalf("FUSE request from %d: %+v, %v; want the Engine's stat", pid, st, err)
	}
	return pid
}
