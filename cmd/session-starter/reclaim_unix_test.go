//go:build darwin || freebsd || linux

package main

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/session-starter/session-starter/internal/ledger"
)

// privateDir is a temporary directory of the test's, 0700 as the ledger's
// must be.
func privateDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	return dir
}

// reclaimCmd runs session-starter --reclaim with args and the ledger dir,
// and returns its stdout, its status record and its exit code.
func reclaimCmd(t *testing.T, dir string, args ...string) (string, ledger.Report, int) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	cmd := exec.Command(binary, append([]string{"--reclaim", "--status-fd", "3"}, args...)...)
	cmd.Env = append(os.Environ(), ledger.EnvDir+"="+dir)
	cmd.ExtraFiles = []*os.File{w}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	w.Close()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	var rep ledger.Report
	if err := json.NewDecoder(r).Decode(&rep); err != nil && code == 0 {
		t.Fatalf("--reclaim's record: %v; stdout %q, stderr %q", err, out, stderr.String())
	}
	return string(out), rep, code
}
