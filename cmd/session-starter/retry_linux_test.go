package main

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/session-starter/session-starter/internal/testproc"
)

// TestExecutedIsTheRetrySignalOfACompleteRecord: a caller in any
// language that runs one call as a session learns from the ended record
// whether the call's program ran — executed false means it did not (the
// marker is never there), true that it did; and a session-starter that
// was SIGKILLed writes no ended record at all, so that a caller cannot
// mistake it for one that ran nothing.
func TestExecutedIsTheRetrySignalOfACompleteRecord(t *testing.T) {
	for _, tt := range []struct {
		name     string
		args     []string
		executed bool
	}{
		{"ran", nil, true},
		{"not found", []string{"--", "no-such-program-anywhere"}, false},
		{"the launcher gone before the go-ahead", []string{"--parent-pid", "1"}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			marker := filepath.Join(dir, "ran")
			r, w, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			args := append([]string{"--status-fd", "3"}, tt.args...)
			if tt.args == nil || tt.args[0] != "--" {
				args = append(args, "--", "touch", marker)
			}
			cmd := exec.Command(binary, args...)
			cmd.ExtraFiles = []*os.File{w}
			_ = cmd.Run()
			w.Close()
			recs := statusRecords(t, r)
			_, statErr := os.Stat(marker)
			ran := statErr == nil
			if len(recs) == 0 || recs[len(recs)-1]["event"] != "ended" {
				t.Fatalf("records %v: want an ended record last", recs)
			}
			if got := recs[len(recs)-1]["executed"]; got != tt.executed || ran != tt.executed {
				t.Fatalf("executed %v, program ran %v; want both %v", got, ran, tt.executed)
			}
		})
	}
	t.Run("SIGKILLed", func(t *testing.T) {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		out, ow, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		defer out.Close()
		cmd := exec.Command(binary, "--status-fd", "3", "--", "sh", "-c", "echo up; exec sleep 300")
		cmd.ExtraFiles = []*os.File{w}
		cmd.Stdout = ow
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		w.Close()
		ow.Close()
		if line, err := bufio.NewReader(out).ReadString('\n'); err != nil || line != "up\n" {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
			t.Fatalf("Engine said %q, %v", line, err)
		}
		_ = cmd.Process.Signal(syscall.SIGKILL)
		_ = cmd.Wait()
		done := make(chan []map[string]any, 1)
		go func() { done <- statusRecords(t, r) }() // EOF once the guard ended the Engine
		select {
		case recs := <-done:
			for _, rec := range recs {
				if rec["event"] == "ended" {
					t.Fatalf("a SIGKILLed session-starter wrote %v", rec)
				}
			}
		case <-time.After(testproc.TooLong):
			t.Fatal("the status pipe stayed open after the starter's SIGKILL")
		}
	})
}
