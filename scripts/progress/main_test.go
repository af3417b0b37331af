package main

import (
	"bytes"
	"io"
	"os"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestAFailedTestIsPrintedWholeAndAPassedOneNot: a failing test's output,
// subtests included, is printed, a passing one's is not, every package's
// result line is, and the status is 1.
func TestAFailedTestIsPrintedWholeAndAPassedOneNot(t *testing.T) {
	out, status := followFile(t, "testdata/mixed.json", time.Hour)
	for _, want := range []string{"--- FAIL: TestBad", "--- FAIL: TestBad/sub", "bad_test.go:9: broken", "ok  \texample.com/good", "FAIL\texample.com/bad", "2 packages, 2 tests passed, 1 skipped, 1 failed", "failed: example.com/bad.TestBad"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "said by a passing test") {
		t.Errorf("a passing test's output was printed:\n%s", out)
	}
	if status != 1 {
		t.Errorf("status %d, want 1", status)
	}
}

// TestAllPassedIsStatus0: every package passed, status 0.
func TestAllPassedIsStatus0(t *testing.T) {
	if _, status := followFile(t, "testdata/pass.json", time.Hour); status != 0 {
		t.Errorf("status %d, want 0", status)
	}
}

// TestWhatIsNotGoTestJSONIsPassedOnAndFails: a build that failed before
// any JSON (go test's own error) is passed on, and fails.
func TestWhatIsNotGoTestJSONIsPassedOnAndFails(t *testing.T) {
	var out bytes.Buffer
	status := follow(strings.NewReader("go: no module here\n"), &out, time.Hour)
	if status != 1 || !strings.Contains(out.String(), "go: no module here") {
		t.Errorf("status %d, output %q", status, out.String())
	}
	out.Reset()
	if status := follow(strings.NewReader(""), &out, time.Hour); status != 1 {
		t.Errorf("no package tested: status %d, want 1", status)
	}
}

// TestAQuietStretchPrintsTheRunningTest: while nothing else is printed,
// a line says which test runs.
func TestAQuietStretchPrintsTheRunningTest(t *testing.T) {
	pr, pw := io.Pipe()
	var out lockedWriter
	done := make(chan int)
	go func() { done <- follow(pr, &out, 200*time.Millisecond) }()
	_, _ = io.WriteString(pw, `{"Action":"start","Package":"example.com/slow"}`+"\n"+`{"Action":"run","Package":"example.com/slow","Test":"TestSlow"}`+"\n")
	deadline := time.Now().Add(time.Minute)
	for !strings.Contains(out.String(), "running example.com/slow: TestSlow") {
		if time.Now().After(deadline) {
			t.Fatalf("no progress line within a minute: %q", out.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	pw.Close()
	<-done
}

func followFile(t *testing.T, name string, quiet time.Duration) (string, int) {
	t.Helper()
	f, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out bytes.Buffer
	status := follow(f, &out, quiet)
	return out.String(), status
}

// lockedWriter is a buffer written by one goroutine and read by another.
type lockedWriter struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (w *lockedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.Write(p)
}

func (w *lockedWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}
