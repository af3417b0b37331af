package main

import (
	"bytes"
	"os"
	"os/exec"
	"path"
	"strings"
	"testing"

	"github.com/session-starter/session-starter/internal/testproc"
)

// TestInAThreadedCgroupAutoFallsBackAndCgroupRefusesSayingWhy: started in
// a threaded cgroup, where a cgroup made below comes out "domain invalid"
// (joining it fails with EOPNOTSUPP), `auto` falls back to group mode and
// says why at info, and `--containment cgroup` exits 125 naming the
// reason, nothing executed; no session cgroup is left in either case.
func TestInAThreadedCgroupAutoFallsBackAndCgroupRefusesSayingWhy(t *testing.T) {
	_, own := cgroupPlace(t)
	for _, tt := range []struct {
		mode string
		want int
	}{{"auto", 0}, {"cgroup", 125}} {
		t.Run(tt.mode, func(t *testing.T) {
			mark := newMark(t)
			top := path.Join(own, "session-starter-threaded-test-"+strings.ReplaceAll(mark, "/", "_"))
			c := path.Join(top, "c")
			if err := os.MkdirAll(c, 0o755); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() {
				// Run after the mark's cleanup: nothing of the test is left.
				testproc.Eventually(t, "the test's threaded cgroups must be removed", func() bool {
					_ = os.Remove(c)
					return os.Remove(top) == nil
				})
			})
			if err := os.WriteFile(path.Join(c, "cgroup.type"), []byte("threaded"), 0); err != nil {
				t.Skipf("cannot make a threaded cgroup: %v", err)
			}
			dir := t.TempDir()
			// The shell joins the threaded domain, then moves its one
			// thread into the threaded cgroup, and executes the starter.
			cmd := exec.Command("sh", "-c", `echo $$ > "$T/cgroup.procs" && echo $$ > "$T/c/cgroup.threads" && exec "$@"`, "sh",
				binary, "--containment", tt.mode, "--ack", "--log-level", "info", "--", "sh", "-c", "touch "+dir+"/ran")
			cmd.Env = append(os.Environ(), markVar+"="+mark, "T="+top)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			out, _ := cmd.Output()
			if code := cmd.ProcessState.ExitCode(); code != tt.want {
				t.Fatalf("exit %d, want %d; stdout %q, stderr %q", code, tt.want, out, stderr.String())
			}
			_, ranErr := os.Stat(dir + "/ran")
			why := `came out \"domain invalid\"`
			if tt.mode == "cgroup" {
				why = `came out "domain invalid"`
			}
			if !strings.Contains(stderr.String(), why) || strings.Contains(stderr.String(), "errno 95") {
				t.Fatalf("stderr %q, want the reason (%s)", stderr.String(), why)
			}
			if tt.want == 0 {
				if !strings.HasSuffix(string(out), `,"mode":"group"}`+"\n") || ranErr != nil || !strings.Contains(stderr.String(), `"level":"info"`) {
					t.Fatalf("stdout %q, stderr %q, ran: %v; want a group-mode ack, the reason at info and the Engine run", out, stderr.String(), ranErr)
				}
			} else if len(out) != 0 || ranErr == nil || !strings.Contains(stderr.String(), "--containment cgroup") {
				t.Fatalf("stdout %q, stderr %q, ran: %v; want no ack, a report naming --containment cgroup and nothing executed", out, stderr.String(), ranErr)
			}
			entries, err := os.ReadDir(c)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range entries {
				if e.IsDir() {
					t.Errorf("cgroup %s left in the threaded cgroup", e.Name())
				}
			}
			noSurvivors(t, mark)
		})
	}
}
