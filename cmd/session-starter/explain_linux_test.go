package main

// Tests of --explain, and of what a session says of the mode it chose:
// --explain names the mode a session then reports, says what stands
// between the launcher and session-starter, and starts nothing.

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/session-starter/session-starter/internal/sys"
	"github.com/session-starter/session-starter/internal/testproc"
)

// cgroupHides are the ways a test hides the writable cgroup2 mount from
// a starter, in a mount namespace of its own; "" hides nothing.
func cgroupHides(t *testing.T) []struct{ name, cmd string } {
	t.Helper()
	mount, _ := cgroupPlace(t)
	return []struct{ name, cmd string }{
		{"as it is", ""},
		{"read-only", "mount -o bind,remount,ro " + mount},
		{"tmpfs over it", "mount -t tmpfs none " + mount},
	}
}

// runHidden runs the product with args where hide (a shell command) has
// changed the mounts, in a mount namespace of its own, with files from
// descriptor 3 on. It returns stdout, stderr and the exit status.
func runHidden(t *testing.T, mark, hide string, files []*os.File, args ...string) (string, string, int) {
	t.Helper()
	if _, err := exec.LookPath("unshare"); err != nil {
		t.Skip("no unshare")
	}
	if hide == "" {
		hide = "true"
	}
	// The mount change stays in the new mount namespace (private
	// propagation); a bind remount changes only that mount's flags.
	cmd := exec.Command("unshare", append([]string{"--mount", "--propagation", "private", "sh", "-c", hide + ` && exec "$@"`, "sh", binary}, args...)...)
	cmd.Env = append(os.Environ(), markVar+"="+mark)
	cmd.ExtraFiles = files
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	_ = cmd.Run()
	for _, f := range files {
		f.Close()
	}
	return stdout.String(), stderr.String(), cmd.ProcessState.ExitCode()
}

// explainValue returns the value of the line "key: value" of --explain's
// output.
func explainValue(t *testing.T, out, key string) string {
	t.Helper()
	m := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(key) + `: (.*)$`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("--explain printed no %q line:\n%s", key, out)
	}
	return m[1]
}

// TestExplainNamesTheModeASessionThenReports: where the cgroup2 mount is
// writable, read-only or hidden, for each --containment, the mode
// --explain names is the one the started record of a session run there
// next names, and "none" where that session refuses (125).
func TestExplainNamesTheModeASessionThenReports(t *testing.T) {
	for _, hide := range cgroupHides(t) {
		for _, c := range []string{"auto", "group", "cgroup"} {
			t.Run(hide.name+"/"+c, func(t *testing.T) {
				mark := newMark(t)
				out, stderr, code := runHidden(t, mark, hide.cmd, nil, "--explain", "--containment", c)
				if code != 0 {
					t.Fatalf("--explain exited %d; stdout %q, stderr %q", code, out, stderr)
				}
				explained := explainValue(t, out, "mode")

				r, w, err := os.Pipe()
				if err != nil {
					t.Fatal(err)
				}
				defer r.Close()
				_, stderr, code = runHidden(t, mark, hide.cmd, []*os.File{w}, "--containment", c, "--status-fd", "3", "--", "true")
				recs := statusRecords(t, r)
				got := "none"
				if len(recs) == 2 && recs[0]["event"] == "started" {
					got, _ = recs[0]["mode"].(string)
				}
				if got != explained {
					t.Fatalf("--explain said mode %q; the session (exit %d) started in %q; records %v, stderr %q; explain:\n%s", explained, code, got, recs, stderr, out)
				}
				if want := map[bool]int{true: 125, false: 0}[got == "none"]; code != want {
					t.Fatalf("session in mode %q exited %d, want %d; stderr %q", got, code, want, stderr)
				}
				noSurvivors(t, mark)
			})
		}
	}
}

// TestExplainWithoutAWritableCgroupSaysWhyAndTheFix: where no session
// cgroup can be made, --explain says why, and names the delegation that
// would give one.
func TestExplainWithoutAWritableCgroupSaysWhyAndTheFix(t *testing.T) {
	hide := cgroupHides(t)[1]
	mark := newMark(t)
	out, stderr, code := runHidden(t, mark, hide.cmd, nil, "--explain")
	if code != 0 {
		t.Fatalf("--explain exited %d; stdout %q, stderr %q", code, out, stderr)
	}
	if got := explainValue(t, out, "cgroup"); got != "no" {
		t.Errorf("cgroup: %q, want no", got)
	}
	for _, want := range []string{"fell back to the process group: cgroup: the cgroup2 mount", "read-only", "systemd-run --user --scope -p Delegate=yes"} {
		if !strings.Contains(out, want) {
			t.Errorf("--explain does not say %q:\n%s", want, out)
		}
	}
}

// TestCgroupModeWithoutAWritableCgroupNamesTheDelegationItNeeds: the one
// line --containment cgroup fails with says why and what to do.
func TestCgroupModeWithoutAWritableCgroupNamesTheDelegationItNeeds(t *testing.T) {
	for _, hide := range cgroupHides(t)[1:] {
		t.Run(hide.name, func(t *testing.T) {
			mark := newMark(t)
			_, stderr, code := runHidden(t, mark, hide.cmd, nil, "--containment", "cgroup", "--", "true")
			if code != 125 {
				t.Fatalf("exit %d, want 125; stderr %q", code, stderr)
			}
			lines := strings.Split(strings.TrimSuffix(stderr, "\n"), "\n")
			if len(lines) != 1 || !strings.HasPrefix(lines[0], "session-starter: --containment cgroup: ") ||
				!strings.Contains(lines[0], "as root, or in a cgroup delegated to its user (systemd-run --user --scope -p Delegate=yes session-starter …)") {
				t.Fatalf("stderr %q, want one line naming the delegation cgroup mode needs", stderr)
			}
		})
	}
}

// TestAutoStatesTheModeItChoseAtInfo: at --log-level info, a session
// under --containment auto says which mode it got and, when it fell
// back, why; a mode asked for is said at debug.
func TestAutoStatesTheModeItChoseAtInfo(t *testing.T) {
	for _, tt := range []struct {
		hide, containment, level string
		want                     []string
	}{
		{"as it is", "auto", "info", []string{`"mode":"cgroup"`, `"containment":"auto"`, `"cgroup":"`, "containment by a session cgroup"}},
		{"read-only", "auto", "info", []string{`"mode":"group"`, `"containment":"auto"`, `"error":"cgroup: the cgroup2 mount`, "no session cgroup; containment by the process group"}},
		{"as it is", "group", "debug", []string{`"mode":"group"`, `"containment":"group"`, "containment by the process group, as asked"}},
	} {
		t.Run(tt.hide+"/"+tt.containment+"/"+tt.level, func(t *testing.T) {
			var hide string
			for _, h := range cgroupHides(t) {
				if h.name == tt.hide {
					hide = h.cmd
				}
			}
			mark := newMark(t)
			_, stderr, code := runHidden(t, mark, hide, nil, "--containment", tt.containment, "--log-level", tt.level, "--log-format", "json", "--", "true")
			if code != 0 {
				t.Fatalf("exit %d; stderr %q", code, stderr)
			}
			var line string
			for l := range strings.SplitSeq(stderr, "\n") {
				if strings.Contains(l, `"message":"containment by`) || strings.Contains(l, `"message":"no session cgroup`) {
					line = l
				}
			}
			for _, want := range append(tt.want, `"level":"`+tt.level+`"`) {
				if !strings.Contains(line, want) {
					t.Errorf("the containment line %q has no %q; stderr:\n%s", line, want, stderr)
				}
			}
		})
	}
}

// TestExplainTellsAWrapperShellFromTheLauncher: started by the test
// itself, the parent is the launcher; started by a shell that does not
// exec it, the parent is the shell, and --explain says so and what to do.
func TestExplainTellsAWrapperShellFromTheLauncher(t *testing.T) {
	out, err := exec.Command(binary, "--explain").Output()
	if err != nil {
		t.Fatal(err)
	}
	if got := explainValue(t, string(out), "parent"); got != "launcher" {
		t.Errorf("started by the test: parent: %q, want launcher:\n%s", got, out)
	}
	// "; exit" keeps sh from executing the last command in its place.
	out, err = exec.Command("sh", "-c", `"$0" --explain; exit`, binary).Output()
	if err != nil {
		t.Fatal(err)
	}
	if got := explainValue(t, string(out), "parent"); got != "wrapper" || !strings.Contains(string(out), "is a shell (") || !strings.Contains(string(out), "add --watch-stdin") {
		t.Errorf("started by sh: parent: %q, want wrapper, a shell, and the advice:\n%s", got, out)
	}
}

// TestWrapperKindNamesShellsAndPackageRunners: what a parent is taken
// for, by its command name, executable and arguments.
func TestWrapperKindNamesShellsAndPackageRunners(t *testing.T) {
	for _, tt := range []struct {
		comm, exe string
		argv      []string
		want      string
	}{
		{"bash", "/usr/bin/bash", []string{"-bash"}, "a shell (bash)"},
		{"sh", "/usr/bin/dash", []string{"sh", "-c", "x"}, "a shell (sh)"},
		{"node", "/usr/bin/node", []string{"node", "/usr/lib/node_modules/npm/bin/npx-cli.js", "-y", "pkg"}, "a package runner (npx-cli)"},
		{"npm exec foo", "/usr/bin/node", []string{"npm exec foo"}, "a package runner (npm)"},
		{"uvx", "/home/me/.local/bin/uvx", []string{"uvx", "server"}, "a package runner (uvx)"},
		{"sudo", "/usr/bin/sudo", []string{"sudo", "x"}, "a privilege wrapper (sudo)"},
		{"node", "/usr/bin/node", []string{"node", "/opt/client/main.js"}, ""},
		{"claude", "/usr/bin/claude", []string{"claude"}, ""},
		{"python3", "/usr/bin/python3.12", []string{"python3", "-m", "app"}, ""},
	} {
		if got := wrapperKind(tt.comm, tt.exe, tt.argv); got != tt.want {
			t.Errorf("wrapperKind(%q, %q, %q) = %q, want %q", tt.comm, tt.exe, tt.argv, got, tt.want)
		}
	}
}

// TestExplainStartsNothingAndSaysWherePathFindsProgram: with PROGRAM,
// --explain executes nothing, names the path PATH gives and, where there
// is none, the status a session would exit with.
func TestExplainStartsNothingAndSaysWherePathFindsProgram(t *testing.T) {
	dir := t.TempDir()
	out, err := exec.Command(binary, "--explain", "--", "sh", "-c", "touch "+dir+"/ran").Output()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "ran")); err == nil {
		t.Fatal("--explain executed PROGRAM")
	}
	sh, _ := exec.LookPath("sh")
	if got := explainValue(t, string(out), "program"); got != sh {
		t.Errorf("program: %q, want %q", got, sh)
	}
	out, err = exec.Command(binary, "--explain", "--", "no-such-program-here").Output()
	if err != nil {
		t.Fatal(err)
	}
	if got := explainValue(t, string(out), "program"); got != "not found" || !strings.Contains(string(out), "(a session would exit 127)") {
		t.Errorf("program: %q, want not found and exit 127:\n%s", got, out)
	}
}

// TestExplainNamesTheKernelFeaturesTheSessionProbes: each feature has a
// line, and the group signal's is the probe a session makes itself.
func TestExplainNamesTheKernelFeaturesTheSessionProbes(t *testing.T) {
	out, err := exec.Command(binary, "--explain").Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"pidfd_open", "waitid P_PIDFD", "cgroup.kill", "PIDFD_SIGNAL_PROCESS_GROUP", "PIDFD_GET_INFO", "pidfs"} {
		if !regexp.MustCompile(`(?m)^  ` + regexp.QuoteMeta(f) + ` \(Linux [0-9.]+[^)]*\): (yes|no|unknown)`).Match(out) {
			t.Errorf("no line for %s:\n%s", f, out)
		}
	}
	want := map[bool]string{true: "yes", false: "no"}[sys.GroupSignalSupported()]
	if !strings.Contains(string(out), "PIDFD_SIGNAL_PROCESS_GROUP (Linux 6.9, the group signalled through a pidfd): "+want) {
		t.Errorf("PIDFD_SIGNAL_PROCESS_GROUP: want %s:\n%s", want, out)
	}
}

// TestExplainLeavesNoSessionCgroup: the session cgroup --explain makes to
// know that it can is removed again.
func TestExplainLeavesNoSessionCgroup(t *testing.T) {
	_, own := cgroupPlace(t)
	cmd := exec.Command(binary, "--explain")
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	if got := explainValue(t, string(out), "cgroup"); got != "yes" {
		t.Fatalf("cgroup: %q, want yes where the test can write one:\n%s", got, out)
	}
	left, err := filepath.Glob(filepath.Join(own, "session-starter-"+strconv.Itoa(cmd.Process.Pid)+"-*"))
	if err != nil || len(left) != 0 {
		t.Fatalf("after --explain: %v, %v; want no session cgroup of it", left, err)
	}
}

// TestAStopDuringExplainEndsItByThatSignalOnceItHasSaidAll: --explain
// holds no session, so a stop signal that comes while it runs ends it by
// that signal, as it ends --help; but only once it has finished, so that
// the cgroup it may make to probe is removed. The signal comes while its
// first line is blocked on a full stdout.
func TestAStopDuringExplainEndsItByThatSignalOnceItHasSaidAll(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	filled := fillPipe(t, w)
	cmd := exec.Command(binary, "--explain")
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = w, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	pid := cmd.Process.Pid
	testproc.Eventually(t, "session-starter --explain writes to its full stdout", func() bool { return writingStdout(pid) })
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	out, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	if ws := cmd.ProcessState.Sys().(syscall.WaitStatus); !ws.Signaled() || ws.Signal() != syscall.SIGTERM {
		t.Fatalf("--explain stopped by SIGTERM: %s, want death by SIGTERM; stderr: %s", statusString(ws), &stderr)
	}
	if said := string(out[filled:]); !strings.Contains(said, "\nkernel: ") {
		t.Fatalf("--explain stopped by SIGTERM said %q, want all of it, its kernel features last", said)
	}
}

// fillPipe fills the pipe w writes to, and returns how many bytes it
// wrote; w is left blocking.
func fillPipe(t *testing.T, w *os.File) int {
	t.Helper()
	fd := int(w.Fd())
	if err := unix.SetNonblock(fd, true); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, size := range []int{4096, 1} {
		for {
			m, err := unix.Write(fd, make([]byte, size))
			if err == unix.EAGAIN {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			n += m
		}
	}
	if err := unix.SetNonblock(fd, false); err != nil {
		t.Fatal(err)
	}
	return n
}

// writingStdout reports whether a thread of process pid is in a write(2)
// to descriptor 1.
func writingStdout(pid int) bool {
	prefix := fmt.Sprintf("%d 0x1 ", unix.SYS_WRITE)
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/syscall", pid))
	for _, f := range tasks {
		if b, err := os.ReadFile(f); err == nil && strings.HasPrefix(string(b), prefix) {
			return true
		}
	}
	return false
}
