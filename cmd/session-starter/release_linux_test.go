package main

import (
	"io"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/session-starter/session-starter/internal/testproc"
)

// TestAPipePassedAsFD5ReadsEOFWhenTheEngineClosesItsCopy: the starter
// releases the descriptors the launcher passed once the Engine has them,
// so the launcher reads end of file on such a pipe while the session
// still runs; the status and control descriptors stay the starter's.
func TestAPipePassedAsFD5ReadsEOFWhenTheEngineClosesItsCopy(t *testing.T) {
	mark := newMark(t)
	status, statusW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer status.Close()
	ctlR, ctl, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer ctl.Close()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	s := start(t, mark, []string{"--status-fd", "3", "--control-fd", "4", "--", "sh", "-c", `exec 5>&-; echo closed; read x; exit 6`},
		withExtraFiles(statusW, ctlR, w))
	statusW.Close()
	ctlR.Close()
	w.Close()
	if got := s.line(); got != "closed" {
		t.Fatalf("Engine said %q, want closed", got)
	}
	got := make(chan error, 1)
	go func() {
		_, err := io.ReadAll(r)
		got <- err
	}()
	select {
	case err := <-got:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(testproc.TooLong):
		t.Fatalf("no end of file on the pipe passed as fd 5 within %v, though the Engine closed its copy", testproc.TooLong)
	}
	if s.cmd.ProcessState != nil {
		t.Fatal("the session was over before the end of file, want it still running")
	}
	if _, err := s.in.Write([]byte("x\n")); err != nil {
		t.Fatal(err)
	}
	wantExit(t, s.wait(), 6, s.stderr)
	recs := statusRecords(t, status)
	if len(recs) != 2 || recs[1]["event"] != "ended" {
		t.Fatalf("status records = %v, want started and ended", recs)
	}
	noSurvivors(t, mark)
}

// TestTheStarterAndTheGuardWorkInTheRootOnceTheEngineRuns: the Engine
// keeps the launcher's working directory; the starter and the guard hold
// none that the launcher may want to unmount.
func TestTheStarterAndTheGuardWorkInTheRootOnceTheEngineRuns(t *testing.T) {
	mark := newMark(t)
	dir := t.TempDir()
	s := start(t, mark, []string{"--ack", "--", "sh", "-c", `pwd; read x`}, withDir(dir))
	s.ack()
	if got := s.line(); got != dir {
		t.Fatalf("the Engine works in %q, want the launcher's %q", got, dir)
	}
	guard := guardOf(t, s.cmd.Process.Pid)
	for who, p := range map[string]int{"starter": s.cmd.Process.Pid, "guard": guard} {
		testproc.Eventually(t, "the "+who+"'s working directory must be /", func() bool {
			cwd, err := os.Readlink("/proc/" + strconv.Itoa(p) + "/cwd")
			return err == nil && cwd == "/"
		})
	}
	if _, err := s.in.Write([]byte("x\n")); err != nil {
		t.Fatal(err)
	}
	wantExit(t, s.wait(), 0, s.stderr)
	noSurvivors(t, mark)
}
