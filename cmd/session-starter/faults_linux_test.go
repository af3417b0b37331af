package main

// Resource failures and leaks: fork failing under
// RLIMIT_NPROC, /dev/null unavailable at setup, the guard lost before the
// go-ahead, closed standard descriptors (a documented limit), and no
// descriptor or zombie left behind by a thousand in-process sessions.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/session-starter/session-starter/internal/testproc"
	"github.com/session-starter/session-starter/internal/wire"
	"github.com/session-starter/session-starter/starter"
	"github.com/session-starter/session-starter/starter/launch"
)

func init() {
	testproc.Register("run-loop", runLoop)
}

// nobody is the unprivileged user the RLIMIT_NPROC test runs as: the limit
// does not bind root.
const nobody = 65534

// TestForkFailingUnderRLIMIT_NPROCRunsNothing runs the starter as an
// unprivileged user under every process limit from 1 to 32: the lowest
// stop the starter's own Go runtime, the middle ones its gate or its
// guard. Whatever fails, nothing is executed and nothing is left; a
// failure of session-starter's own is exit 125 with a report, and with
// enough room the session works. The starter's runtime failing to make a
// thread is a limit of Go (exit 2 with a runtime report), logged, not a
// failure: before main, or later where its sysmon hands a processor to a
// new thread (seen under load with Go 1.27), which the starter cannot
// refuse.
func TestForkFailingUnderRLIMIT_NPROCRunsNothing(t *testing.T) {
	if portable {
		t.Skip("the portable launcher is a Go program that needs threads of its own before it executes the product: the limit stops the launcher, not the product")
	}
	if os.Geteuid() != 0 {
		skipUnlessCI(t, "needs root to run the starter as another user")
	}
	prlimit, err := exec.LookPath("prlimit")
	if err != nil {
		skipUnlessCI(t, "prlimit (util-linux) is not installed")
	}
	if n := processesOf(nobody); n > 0 {
		t.Skipf("uid %d has %d processes on this machine; RLIMIT_NPROC counts them too", nobody, n)
	}
	dir, err := os.MkdirTemp("", "session-starter-nproc-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	bin := filepath.Join(dir, "session-starter")
	copyFile(t, binary, bin)
	work := filepath.Join(dir, "work")
	if err := os.Mkdir(work, 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(work, 0o777); err != nil {
		t.Fatal(err)
	}
	outcomes := map[string][]int{}
	var gateFailed, guardFailed bool
	// The starter holds 8 threads before the go-ahead (reserveThreads);
	// on a loaded machine its runtime starts more on the way there, so
	// the sweep goes well past the 10 tasks a session takes when quiet.
	// The limit at which the gate is made but not the guard is one task
	// wide, and the runtime makes its threads when it will: a sweep that
	// missed it is run again, at most three times.
	for sweep := 0; sweep < 3 && !(gateFailed && guardFailed); sweep++ {
		for limit := 1; limit <= 32; limit++ {
			kind := runUnderNPROC(t, prlimit, bin, work, limit)
			outcomes[kind] = append(outcomes[kind], limit)
			gateFailed = gateFailed || strings.HasPrefix(kind, "125: session-starter: gate")
			guardFailed = guardFailed || strings.HasPrefix(kind, "125: session-starter: guard")
		}
	}
	for kind, limits := range outcomes {
		t.Logf("RLIMIT_NPROC %v: %s", limits, kind)
	}
	if !gateFailed || !guardFailed {
		t.Errorf("in three sweeps no limit made the gate (%v) and the guard (%v) fail to start; the sweep missed its point", gateFailed, guardFailed)
	}
	if len(outcomes["the session worked"]) == 0 {
		t.Error("no limit up to 32 let the session work")
	}
}

// runUnderNPROC runs the starter as nobody under RLIMIT_NPROC limit and
// says how it came out; an outcome that is not allowed is a test error.
func runUnderNPROC(t *testing.T, prlimit, bin, work string, limit int) string {
	t.Helper()
	mark := newMark(t)
	ran := filepath.Join(work, "ran")
	os.Remove(ran)
	cmd := exec.Command(prlimit, "--nproc="+strconv.Itoa(limit), "--", bin, "--ack", "--", "sh", "-c", `echo > "$0"`, ran)
	cmd.Dir = work
	cmd.Env = append(os.Environ(), markVar+"="+mark)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	_ = cmd.Run()
	ws := cmd.ProcessState.Sys().(syscall.WaitStatus)
	_, err := os.Stat(ran)
	executed := err == nil
	report := lastReport(stderr.String())
	defer noSurvivors(t, mark)
	switch {
	case ws.Exited() && ws.ExitStatus() == 0 && executed:
		return "the session worked"
	case ws.Exited() && ws.ExitStatus() == 2 && !executed && strings.Contains(stderr.String(), "runtime: failed to create new OS thread"):
		return "the starter's Go runtime could not start (exit 2, a limit of Go)"
	case ws.Exited() && ws.ExitStatus() == 125 && !executed && report != "":
		if stdout.Len() != 0 {
			t.Errorf("limit %d: stdout = %q, want no ack when containment failed", limit, &stdout)
		}
		return "125: " + blankNumbers(report)
	}
	t.Errorf("limit %d: %s, Engine executed %v, want exit 125 with a report and nothing executed (or success); stderr:\n%s",
		limit, statusString(ws), executed, tail(stderr.String(), 2000))
	return "unexpected"
}

// lastReport returns the last "session-starter: " line of stderr (a
// helper's Go runtime may have written its own report before it).
func lastReport(stderr string) string {
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if strings.HasPrefix(lines[i], "session-starter: ") {
			return lines[i]
		}
	}
	return ""
}

// processesOf counts the processes (threads included) of uid.
func processesOf(uid int) int {
	entries, _ := os.ReadDir("/proc")
	n := 0
	for _, e := range entries {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		st, err := os.Stat("/proc/" + e.Name())
		if err == nil && int(st.Sys().(*syscall.Stat_t).Uid) == uid {
			n++
		}
	}
	return n
}

// TestDevNullUnavailableAtSetupIsAContainmentFailure runs the starter in a
// mount namespace where /dev/null is missing or cannot be opened for
// writing: it needs it for its own stdio after the release and for the
// guard, so it refuses, exit 125, before anything runs.
func TestDevNullUnavailableAtSetupIsAContainmentFailure(t *testing.T) {
	unshare, err := exec.LookPath("unshare")
	if err != nil {
		skipUnlessCI(t, "unshare is not installed")
	}
	plain := filepath.Join(t.TempDir(), "plain")
	if err := os.WriteFile(plain, nil, 0o666); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name, setup, want string
	}{
		{"missing", `mount -t tmpfs none /dev`, "open /dev/null: no such file or directory"},
		{"read-only", `mount --bind "$1" /dev/null && mount -o remount,ro,bind /dev/null`, "open /dev/null: read-only file system"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			mark := newMark(t)
			dir := t.TempDir()
			// unshare --mount makes the new namespace's mounts private:
			// nothing reaches the machine's /dev.
			cmd := exec.Command(unshare, "--mount", "sh", "-c", tt.setup+` && exec "$0" --ack -- sh -c 'echo > ran'`, binary, plain)
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), markVar+"="+mark)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			if strings.Contains(stderr.String(), "unshare failed") || strings.Contains(stderr.String(), "mount:") {
				skipUnlessCI(t, "cannot set up the mount namespace: "+stderr.String())
			}
			if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 125 {
				t.Fatalf("session-starter without a usable /dev/null: %v, want exit 125; stderr: %s", err, &stderr)
			}
			if got := stderr.String(); got != "session-starter: "+tt.want+"\n" {
				t.Errorf("stderr = %q, want one line: session-starter: %s", got, tt.want)
			}
			if stdout.Len() != 0 {
				t.Errorf("stdout = %q, want no ack", &stdout)
			}
			if _, err := os.Stat(filepath.Join(dir, "ran")); err == nil {
				t.Error("the Engine ran, want nothing executed")
			}
			noSurvivors(t, mark)
		})
	}
}

// TestClosedStandardDescriptorsReachTheEngineAsDevNull pins a documented
// limit (the manual, "Known gaps"): a launcher that starts session-starter
// with descriptors 0, 1 and 2 closed does not give the Engine closed
// descriptors, because the Go runtime opens /dev/null on them before
// main. A direct launch would leave them closed.
func TestClosedStandardDescriptorsReachTheEngineAsDevNull(t *testing.T) {
	mark := newMark(t)
	dir := t.TempDir()
	// $$ is the shell itself, not the subshell of $(…), whose 1 is a pipe.
	engine := `fds=$(for n in 0 1 2; do readlink /proc/$$/fd/$n || echo closed; done); echo "$fds" > fds`
	pidfd := -1
	closed := ^uintptr(0) // a slot of -1 is closed in the child
	pid, err := syscall.ForkExec(binary, []string{binary, "--", "sh", "-c", engine}, &syscall.ProcAttr{
		Dir:   dir,
		Env:   append(os.Environ(), markVar+"="+mark),
		Files: []uintptr{closed, closed, closed},
		Sys:   &syscall.SysProcAttr{PidFD: &pidfd},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(pidfd)
	awaitExit(t, pidfd, "the starter must exit")
	var ws syscall.WaitStatus
	if _, err := syscall.Wait4(pid, &ws, 0, nil); err != nil {
		t.Fatal(err)
	}
	wantExit(t, ws, 0, &strings.Builder{})
	got, err := os.ReadFile(filepath.Join(dir, "fds"))
	if err != nil {
		t.Fatal(err)
	}
	if want := "/dev/null\n/dev/null\n/dev/null\n"; string(got) != want {
		t.Fatalf("the Engine's 0, 1, 2 = %q, want %q (the documented limit); if this changed, update the manual", got, want)
	}
	noSurvivors(t, mark)
}

// holdAtAck starts the starter with --ack into a full stdout pipe, so that
// it blocks writing the ack: the gate and the guard exist, the go-ahead
// has not been sent. It returns the command and a function that lets the
// ack through.
func holdAtAck(t *testing.T, mark, dir string, flags ...string) (*exec.Cmd, *bytes.Buffer, func()) {
	t.Helper()
	cmd := exec.Command(binary, holdArgs(flags...)...)
	cmd.Env = append(os.Environ(), markVar+"="+mark)
	return holdCmdAtAck(t, cmd, dir)
}

// holdArgs is the command line of a held starter: flags, then an Engine
// that leaves a file named ran and a tree.
func holdArgs(flags ...string) []string {
	return append(append([]string{"--ack"}, flags...), "--", "sh", "-c", `echo > ran; sleep 600 & exec sleep 600`)
}

// holdCmdAtAck is holdAtAck for a command that is, or executes, the
// starter with holdArgs.
func holdCmdAtAck(t *testing.T, cmd *exec.Cmd, dir string) (*exec.Cmd, *bytes.Buffer, func()) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	fill(t, w)
	cmd.Dir = dir
	cmd.Stdout = w
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	testproc.Eventually(t, "the starter must block writing its ack", func() bool {
		tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/wchan", cmd.Process.Pid))
		for _, f := range tasks {
			if b, _ := os.ReadFile(f); strings.HasSuffix(string(b), "pipe_write") {
				return true
			}
		}
		return false
	})
	return cmd, &stderr, func() { go func() { _, _ = io.Copy(io.Discard, r) }() }
}

// childWith returns the starter's child whose command line carries arg.
func childWith(t *testing.T, parent int, arg string) int {
	t.Helper()
	for _, c := range childrenOf(parent) {
		if cmdlineHas(c, arg) {
			return c
		}
	}
	t.Fatalf("pid %d has no child with %s", parent, arg)
	return 0
}

// killAndAwait SIGKILLs parent's child pid, checked through a pidfd to
// be the one with arg, and waits until it has exited.
func killAndAwait(t *testing.T, pid, parent int, arg string) {
	t.Helper()
	fd, err := unix.PidfdOpen(pid, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fd)
	if ppidOf(pid) != parent || !cmdlineHas(pid, arg) {
		t.Fatalf("pid %d is no longer the child with %s", pid, arg)
	}
	if err := unix.PidfdSendSignal(fd, unix.SIGKILL, nil, 0); err != nil {
		t.Fatal(err)
	}
	awaitExit(t, fd, "the killed process must exit")
}

// TestGuardLostBeforeTheGoAheadRunsNothing kills the armed guard while the
// starter still holds the go-ahead (it is blocked writing the ack). The
// Engine must not be executed without a backstop: were the starter
// SIGKILLed right after such a go-ahead, nothing would end the Engine's
// tree. Want: exit 125, nothing executed.
func TestGuardLostBeforeTheGoAheadRunsNothing(t *testing.T) {
	mark := newMark(t)
	dir := t.TempDir()
	// The debug log says when the go-ahead was sent: the Engine may be
	// killed before its first command leaves a trace.
	cmd, stderr, release := holdAtAck(t, mark, dir, "--log-level", "debug", "--log-format", "json")
	killAndAwait(t, childWith(t, cmd.Process.Pid, wire.GuardComm), cmd.Process.Pid, wire.GuardComm)
	release()
	_ = cmd.Wait()
	ws := cmd.ProcessState.Sys().(syscall.WaitStatus)
	_, err := os.Stat(filepath.Join(dir, "ran"))
	executed := err == nil || strings.Contains(stderr.String(), `"message":"engine released"`)
	noSurvivors(t, mark)
	wantExit(t, ws, 125, stderr)
	if executed {
		t.Fatalf("the Engine was released after its guard was gone; want nothing executed; stderr:\n%s", stderr)
	}
}

// TestGateKilledBeforeTheGoAheadRunsNothing: the gate SIGKILLed while the
// starter holds the go-ahead; the go-ahead finds no reader, exit 125.
func TestGateKilledBeforeTheGoAheadRunsNothing(t *testing.T) {
	mark := newMark(t)
	dir := t.TempDir()
	cmd, stderr, release := holdAtAck(t, mark, dir)
	killAndAwait(t, childWith(t, cmd.Process.Pid, wire.GateComm), cmd.Process.Pid, wire.GateComm)
	release()
	_ = cmd.Wait()
	wantExit(t, cmd.ProcessState.Sys().(syscall.WaitStatus), 125, stderr)
	if !strings.HasPrefix(stderr.String(), "session-starter: ") || !strings.Contains(stderr.String(), "gate") {
		t.Errorf("stderr = %q, want a report naming the gate", stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "ran")); err == nil {
		t.Fatal("the Engine ran, want nothing executed")
	}
	noSurvivors(t, mark)
}

// fdSummary is what the run-loop helper reports.
type fdSummary struct {
	Runs      int      `json:"runs"`
	Before    []string `json:"before"`
	After     []string `json:"after"`
	Children  []int    `json:"children"`
	Failures  []string `json:"failures"`
	PerRunMs  float64  `json:"per_run_ms"`
	Goroutine int      `json:"goroutines_after"`
}

// TestAThousandSessionsInOneProcessLeakNoDescriptorAndNoZombie calls
// starter.Run a thousand times in one helper process — sessions ending
// every way — and compares its descriptor table before and after; no
// child (zombie or not) may be left.
func TestAThousandSessionsInOneProcessLeakNoDescriptorAndNoZombie(t *testing.T) {
	skipUnderEmulator(t, "a thousand sessions take most of an hour")
	mark := newMark(t)
	n := trials(1000, 5000)
	cmd := helperCommand(t, mark, "run-loop", strconv.Itoa(n))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	bound := time.AfterFunc(driverBound(n), func() { _ = cmd.Process.Kill() })
	err := cmd.Wait()
	bound.Stop()
	var sum fdSummary
	if jerr := json.Unmarshal(stdout.Bytes(), &sum); jerr != nil {
		t.Fatalf("run-loop: %v; stdout %q; stderr:\n%s", err, stdout.String(), tail(stderr.String(), 4000))
	}
	t.Logf("%d runs, %.1f ms each; descriptors before %d, after %d; children after %v; goroutines after %d",
		sum.Runs, sum.PerRunMs, len(sum.Before), len(sum.After), sum.Children, sum.Goroutine)
	for _, f := range sum.Failures {
		t.Error(f)
	}
	if fmt.Sprint(sum.Before) != fmt.Sprint(sum.After) {
		t.Errorf("descriptors before: %v\nafter: %v", sum.Before, sum.After)
	}
	if len(sum.Children) != 0 {
		t.Errorf("children left after the runs: %v", sum.Children)
	}
	if err != nil {
		t.Fatalf("run-loop: %v; stderr:\n%s", err, tail(stderr.String(), 4000))
	}
	noSurvivors(t, mark)
}

// runLoop calls starter.Run args[0] times with the product binary as the
// gate and the guard.
func runLoop(args []string) int {
	n, _ := strconv.Atoi(args[0])
	exe := os.Getenv("SESSION_STARTER_BIN")
	var sum fdSummary
	sum.Runs = n
	// One session first: whatever the runtime opens once (signal
	// handling, the netpoller) is open before the count.
	engines := []struct {
		argv []string
		want func(starter.Result, error) bool
	}{
		{[]string{"true"}, func(r starter.Result, err error) bool { return err == nil && r.Engine.Exited && r.Engine.Code == 0 }},
		{[]string{"sh", "-c", "sleep 600 & exit 3"}, func(r starter.Result, err error) bool { return err == nil && r.Engine.Exited && r.Engine.Code == 3 }},
		{[]string{"sh", "-c", "exec sleep 600"}, func(r starter.Result, err error) bool { return err == nil && r.Reason == starter.ReasonCanceled }},
		{[]string{"no-such-program-anywhere"}, func(r starter.Result, err error) bool { return r.Verdict(err).Code == 127 }},
		{[]string{"/"}, func(r starter.Result, err error) bool { return r.Verdict(err).Code == 126 }},
	}
	one := func(i int) {
		e := engines[i%len(engines)]
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		o := starter.Options{Argv: e.argv, Exe: exe, Ending: launch.Ending{KillBudget: 10 * time.Second}}
		if i%len(engines) == 2 {
			o.Released = cancel // ended as soon as it runs
		}
		res, err := starter.Run(ctx, o)
		if !e.want(res, err) {
			sum.Failures = append(sum.Failures, fmt.Sprintf("run %d %q: %+v, %v", i, e.argv, res, err))
		}
	}
	one(0)
	sum.Before = fdList()
	start := time.Now()
	for i := range n {
		one(i)
		if len(sum.Failures) > 10 {
			break
		}
	}
	sum.PerRunMs = float64(time.Since(start)) / float64(time.Millisecond) / float64(n)
	sum.After = fdList()
	sum.Children = childrenOf(os.Getpid())
	sum.Goroutine = runtime.NumGoroutine()
	b, _ := json.Marshal(sum)
	fmt.Println(string(b))
	return 0
}

// fdList lists this process's descriptors as "N -> target", with the
// inode numbers of pipes and anonymous inodes blanked (the same kind of
// descriptor at the same number is the same for this comparison).
func fdList() []string {
	entries, _ := os.ReadDir("/proc/self/fd")
	var out []string
	for _, e := range entries {
		target, err := os.Readlink("/proc/self/fd/" + e.Name())
		if err != nil {
			continue // the descriptor ReadDir itself used
		}
		out = append(out, e.Name()+" -> "+inode.ReplaceAllString(target, "[…]"))
	}
	return out
}

var inode = regexp.MustCompile(`\[\d+\]`)
