package main

// Kill at every moment: the starter, the guard and the
// gate are SIGKILLed at random instants of many sessions, and nothing of
// any session may be left running.
//
// The trials run in a helper process (the driver) that is a child
// subreaper: every orphan of its sessions — the Engine's tree, the guard
// after the starter's death — is re-parented to it and reaped by it, so
// "nothing survives" is checked twice: no live process carries the test's
// marker (the Engine's tree), and the driver has no child left at the end
// (the guard carries no marker, being started with a clean environment).
//
// The default `go test` runs a few hundred trials; `make torture` sets
// SESSION_STARTER_TORTURE=1 for the long variants.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/session-starter/session-starter/internal/testproc"
	"github.com/session-starter/session-starter/internal/wire"
)

// tortureVar selects the long variants (make torture).
const tortureVar = "SESSION_STARTER_TORTURE"

func torture() bool { return os.Getenv(tortureVar) == "1" }

// trials returns the default count, the torture count under make
// torture, or a tenth of the default (at least 2) under go test -short,
// for a quick run while working; CI runs the default counts.
func trials(def, long int) int {
	switch {
	case torture():
		return long
	case testing.Short():
		return max(def/10, 2)
	}
	return def
}

func init() {
	testproc.Register("kill-trials", killTrials)
}

// killEngine is the Engine of the kill trials: it says it ran (a file
// named by its first argument), starts a background child and an orphaned
// grandchild, and waits.
const killEngine = `echo > "$0"; sleep 600 & (sleep 600 &); exec sleep 600`

// Roles of the process a kill trial SIGKILLs.
const (
	roleStarter = "starter"
	roleGuard   = "guard"
	roleGate    = "gate"
)

// killSummary is what the driver reports on stdout, one JSON object.
type killSummary struct {
	Role    string `json:"role"`
	Trials  int    `json:"trials"`
	Workers int    `json:"workers"`
	// EngineRan counts the trials in which the Engine's first command
	// had run.
	EngineRan int `json:"engine_ran"`
	// Hit counts the trials in which the target was found and killed
	// (always all of them for the starter; the gate may have executed
	// the Engine before the kill could land).
	Hit int `json:"hit"`
	// Statuses counts the starter's wait statuses.
	Statuses map[string]int `json:"statuses"`
	// Reports counts the starter's stderr reports, numbers blanked.
	Reports map[string]int `json:"reports"`
	// Orphans counts the processes the driver reaped as their subreaper.
	Orphans int `json:"orphans_reaped"`
	// Survivors counts processes found live after a trial's bound.
	Survivors int     `json:"survivors"`
	MaxEndMs  float64 `json:"max_end_ms"`
	ElapsedS  float64 `json:"elapsed_s"`
	Failures  []string
}

// runKillTrials runs the driver for role and checks its summary.
func runKillTrials(t *testing.T, role string, n, workers int) killSummary {
	t.Helper()
	mark := newMark(t)
	cmd := helperCommand(t, mark, "kill-trials", role, strconv.Itoa(n), strconv.Itoa(workers), t.TempDir())
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill() }) // a no-op once it was waited for
	bound := time.AfterFunc(driverBound(n), func() { _ = cmd.Process.Kill() })
	err := cmd.Wait()
	bound.Stop()
	var sum killSummary
	if jerr := json.Unmarshal(stdout.Bytes(), &sum); jerr != nil {
		t.Fatalf("driver: %v; stdout %q; stderr:\n%s", err, stdout.String(), tail(stderr.String(), 4000))
	}
	t.Logf("SIGKILL of the %s: %d trials (%d workers) in %.1f s; target hit in %d; the Engine had run in %d; survivors %d; orphans reaped %d; slowest end %.0f ms",
		role, sum.Trials, sum.Workers, sum.ElapsedS, sum.Hit, sum.EngineRan, sum.Survivors, sum.Orphans, sum.MaxEndMs)
	t.Logf("starter statuses: %v", sum.Statuses)
	t.Logf("starter reports: %v", sum.Reports)
	for _, f := range sum.Failures {
		t.Error(f)
	}
	if err != nil {
		t.Fatalf("driver: %v; stderr:\n%s", err, tail(stderr.String(), 4000))
	}
	noSurvivors(t, mark)
	return sum
}

// driverBound bounds a driver run: far above the measured ~40 ms a trial,
// so that only a hang trips it.
func driverBound(n int) time.Duration { return 2*testproc.TooLong + time.Duration(n)*time.Second }

func tail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}

// TestStarterSIGKILLedAtAnyMomentLeavesNothingRunning: a
// SIGKILL of the starter at any instant — inside the gate/guard hand-shake
// (0–30 ms after start) or while the Engine's tree runs — leaves either
// nothing executed or a group that the guard ends.
func TestStarterSIGKILLedAtAnyMomentLeavesNothingRunning(t *testing.T) {
	sum := runKillTrials(t, roleStarter, trials(300, 5000), 3)
	if sum.EngineRan == 0 || sum.EngineRan == sum.Trials {
		t.Errorf("the Engine had run in %d of %d trials; want both outcomes, or the instants missed the hand-shake", sum.EngineRan, sum.Trials)
	}
}

// TestGuardSIGKILLedAtAnyMomentEndsTheSessionAs125 kills the guard at a
// random instant after it appears, during its arming or later: the starter
// never goes on without its backstop — it refuses the session or ends it,
// exit 125 — and nothing is left.
func TestGuardSIGKILLedAtAnyMomentEndsTheSessionAs125(t *testing.T) {
	sum := runKillTrials(t, roleGuard, trials(300, 5000), 3)
	if sum.Hit != sum.Trials {
		t.Errorf("the guard was killed in %d of %d trials, want all", sum.Hit, sum.Trials)
	}
}

// TestGateSIGKILLedBeforeItsGoAheadRunsNothing kills the gate at a random
// instant while it waits for its go-ahead: the starter exits 125 with
// nothing executed (or, if the go-ahead was already on its way, mirrors
// the SIGKILL), and nothing is left. With the raw guard that wait is a
// fraction of a millisecond, and a trial often finds the Engine executed
// already: a quarter of the trials must hit it.
func TestGateSIGKILLedBeforeItsGoAheadRunsNothing(t *testing.T) {
	sum := runKillTrials(t, roleGate, trials(300, 5000), 3)
	if sum.Hit < sum.Trials/4 {
		t.Errorf("the gate was hit before its exec in %d of %d trials; want a quarter at least", sum.Hit, sum.Trials)
	}
}

// killTrials is the driver: args are role, trials, workers and a scratch
// directory. It prints a killSummary and exits 1 if any trial failed.
func killTrials(args []string) int {
	if len(args) != 4 {
		fmt.Fprintln(os.Stderr, "kill-trials: role trials workers dir")
		return 2
	}
	role, dir := args[0], args[3]
	n, _ := strconv.Atoi(args[1])
	workers, _ := strconv.Atoi(args[2])
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		fmt.Fprintln(os.Stderr, "subreaper:", err)
		return 2
	}
	r := newReaper()
	bin := os.Getenv("SESSION_STARTER_BIN")
	mark := os.Getenv(markVar)
	sum := killSummary{Role: role, Trials: n, Workers: workers, Statuses: map[string]int{}, Reports: map[string]int{}}
	var mu sync.Mutex
	var maxEnd time.Duration
	start := time.Now()
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for {
				i := int(next.Add(1)) - 1
				if i >= n {
					return
				}
				res := killTrial(r, bin, mark, role, i, dir)
				mu.Lock()
				sum.Statuses[res.status]++
				if res.report != "" {
					sum.Reports[blankNumbers(res.report)]++
				}
				if res.ran {
					sum.EngineRan++
				}
				if res.hit {
					sum.Hit++
				}
				sum.Survivors += len(res.survivors)
				maxEnd = max(maxEnd, res.end)
				if res.failure != "" && len(sum.Failures) < 20 {
					sum.Failures = append(sum.Failures, fmt.Sprintf("trial %d: %s", i, res.failure))
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	// Every descendant must be gone: the driver, their subreaper, has no
	// child left once the guards have ended their groups and exited.
	if left := r.drain(testproc.TooLong); len(left) > 0 {
		sum.Failures = append(sum.Failures, "descendants still live after the last trial: "+describe(left))
		sum.Survivors += len(left)
		r.killChildren()
	}
	sum.Orphans = r.orphanCount()
	sum.MaxEndMs = float64(maxEnd) / float64(time.Millisecond)
	sum.ElapsedS = time.Since(start).Seconds()
	b, _ := json.Marshal(sum)
	fmt.Println(string(b))
	if len(sum.Failures) > 0 {
		return 1
	}
	return 0
}

type trialResult struct {
	status    string
	report    string
	ran, hit  bool
	survivors []int
	end       time.Duration // from the kill until nothing of the trial was live
	failure   string
}

// trialVar tells the processes of one trial apart within the driver.
const trialVar = "SESSION_STARTER_TRIAL"

// killTrial runs one session and SIGKILLs role in it.
func killTrial(r *reaper, bin, mark, role string, i int, dir string) (res trialResult) {
	ran := filepath.Join(dir, "ran-"+strconv.Itoa(i))
	errPath := filepath.Join(dir, "err-"+strconv.Itoa(i))
	trial := fmt.Sprintf("%s=%s-%d", trialVar, mark, i)
	argv := []string{bin, "--ack", "--", "sh", "-c", killEngine, ran}
	sp, err := r.start(argv, sessionEnv(mark, trial), "/dev/null", errPath)
	if err != nil {
		res.failure = err.Error()
		return res
	}
	defer sp.close()

	var killedAt time.Time
	switch role {
	case roleStarter:
		// Two thirds inside the first 30 ms (gate, guard, ack, go-ahead),
		// one third once the Engine's tree runs.
		if rand.IntN(3) < 2 {
			time.Sleep(rand.N(30 * time.Millisecond))
		} else {
			if !waitFile(ran, testproc.TooLong) {
				res.failure = "the Engine did not run within " + testproc.TooLong.String()
			}
			time.Sleep(rand.N(20 * time.Millisecond))
		}
		_ = unix.PidfdSendSignal(sp.pidfd, unix.SIGKILL, nil, 0)
		killedAt, res.hit = time.Now(), true
	case roleGuard, roleGate:
		// The raw guard names itself at once; the re-executed one (the
		// portable build's, or before Linux 6.9) carries its hidden-mode
		// argument from its start and its name only once its runtime runs.
		arg := wire.GuardComm
		if !rawGuard() {
			arg = wire.HiddenArg("guard")
		}
		if role == roleGate {
			// The raw gate names itself at once; the re-executed one
			// (the portable build's) carries its hidden-mode argument.
			arg = wire.GateComm
			if portable {
				arg = wire.HiddenArg("gate")
			}
		}
		// The gate may execute the Engine before a look finds it: then
		// this trial missed its moment.
		pid := awaitChild(sp, arg, testproc.TooLong, func() bool { return role == roleGate && fileExists(ran) })
		if pid == 0 && !fileExists(ran) {
			res.failure = fmt.Sprintf("no %s child of the starter appeared", role)
			_ = unix.PidfdSendSignal(sp.pidfd, unix.SIGTERM, nil, 0)
			killedAt = time.Now()
			break
		}
		if role == roleGuard {
			// Half within its arming (the re-executed guard arms in about
			// a millisecond, the raw one in a fraction of that),
			// half anywhere in the first 30 ms of its life.
			if rand.IntN(2) == 0 {
				time.Sleep(rand.N(2 * time.Millisecond))
			} else {
				time.Sleep(rand.N(30 * time.Millisecond))
			}
		} else {
			// The gate waits for its go-ahead while the guard arms: a
			// few hundred microseconds for the raw guard, a few
			// milliseconds for the re-executed one.
			window := 3 * time.Millisecond
			if rawGuard() {
				window = 100 * time.Microsecond
			}
			time.Sleep(rand.N(window))
		}
		res.hit = pid != 0 && killIfStill(pid, sp.pid, arg)
		killedAt = time.Now()
		if !res.hit {
			// The gate has executed the Engine already: this trial
			// missed its moment; end the session the ordinary way.
			_ = unix.PidfdSendSignal(sp.pidfd, unix.SIGTERM, nil, 0)
		}
	}
	ws, ok := sp.wait(testproc.TooLong)
	if !ok {
		res.failure = fmt.Sprintf("the starter (pid %d) did not exit within %v (hit %v; %s)", sp.pid, testproc.TooLong, res.hit, threadsOf(sp.pid))
		// A Go traceback of the hung starter, on its stderr.
		_ = unix.PidfdSendSignal(sp.pidfd, unix.SIGABRT, nil, 0)
		if ws, ok = sp.wait(5 * time.Second); !ok {
			_ = unix.PidfdSendSignal(sp.pidfd, unix.SIGKILL, nil, 0)
			ws, _ = sp.wait(testproc.TooLong)
		}
		if tb, err := os.ReadFile(errPath); err == nil {
			fmt.Fprintf(os.Stderr, "trial %d: the starter hung; its traceback:\n%s\n", i, tb)
		}
	}
	res.status = statusString(ws)
	stderr, _ := os.ReadFile(errPath)
	res.report = strings.TrimSpace(string(stderr))
	// Nothing of the trial may stay live: the guard needs a moment to
	// see the starter gone and end the group.
	res.survivors = awaitNoneMarked(trial, testproc.TooLong)
	res.end = time.Since(killedAt)
	_, err = os.Stat(ran)
	res.ran = err == nil
	if len(res.survivors) > 0 {
		res.failure = join(res.failure, fmt.Sprintf("processes of the trial live %v after the kill: %s", testproc.TooLong, describe(res.survivors)))
		killTrialMarked(trial)
	}
	if res.failure == "" {
		res.failure = checkKillOutcome(role, ws, res)
	}
	if res.failure != "" {
		res.failure += fmt.Sprintf(" (status %s, Engine ran %v, stderr %q)", res.status, res.ran, res.report)
	}
	return res
}

// checkKillOutcome holds what the launcher may see after each kind of
// kill.
func checkKillOutcome(role string, ws syscall.WaitStatus, res trialResult) string {
	switch role {
	case roleStarter:
		if !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
			return "the starter was SIGKILLed but ended otherwise"
		}
	case roleGuard:
		if !ws.Exited() || ws.ExitStatus() != 125 {
			return "guard SIGKILLed: want exit 125"
		}
		if !strings.HasPrefix(res.report, "session-starter: ") || strings.Count(res.report, "\n") != 0 {
			return "guard SIGKILLed: want one report line"
		}
	case roleGate:
		switch {
		case !res.hit:
			// Not killed: the session was ended by SIGTERM.
			if !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
				return "gate missed, session stopped: want the Engine's SIGKILL mirrored"
			}
		case ws.Exited() && ws.ExitStatus() == 125:
			if res.ran {
				return "exit 125 (nothing executed) but the Engine ran"
			}
			if !strings.Contains(res.report, "session-starter: ") {
				return "exit 125 without a report"
			}
		case ws.Signaled() && ws.Signal() == syscall.SIGKILL:
			// The go-ahead was written before the kill landed: the
			// killed gate is the Engine's process, its death mirrored.
		default:
			return "gate SIGKILLed: want exit 125, or the SIGKILL mirrored"
		}
	}
	return ""
}

func join(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

// blankNumbers replaces each run of digits with N, so that reports group.
func blankNumbers(s string) string {
	var b strings.Builder
	digits := false
	for _, c := range s {
		if c >= '0' && c <= '9' {
			if !digits {
				b.WriteByte('N')
			}
			digits = true
			continue
		}
		digits = false
		b.WriteRune(c)
	}
	return b.String()
}

// sessionEnv is the driver's environment for a starter: no helper
// selector, the test's marker and the trial's.
func sessionEnv(mark string, extra ...string) []string {
	env := slices.DeleteFunc(os.Environ(), func(kv string) bool {
		return strings.HasPrefix(kv, testproc.HelperVar+"=") || strings.HasPrefix(kv, markVar+"=")
	})
	return append(append(env, markVar+"="+mark), extra...)
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

func waitFile(path string, d time.Duration) bool {
	deadline := time.Now().Add(d)
	for {
		if _, err := os.Stat(path); err == nil {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(200 * time.Microsecond)
	}
}

// childrenOf lists the children of pid from every thread's children file.
func childrenOf(pid int) []int {
	files, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/children", pid))
	var out []int
	for _, f := range files {
		b, _ := os.ReadFile(f)
		for _, w := range strings.Fields(string(b)) {
			if c, err := strconv.Atoi(w); err == nil {
				out = append(out, c)
			}
		}
	}
	return out
}

// cmdlineHas reports whether pid's command line carries arg (the guard's
// hidden mode), or arg is its command name (a gate, raw or re-executed,
// names itself wire.GateComm until it executes the Engine).
func cmdlineHas(pid int, arg string) bool {
	if comm, err := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid)); err == nil && string(comm) == arg+"\n" {
		return true
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	return err == nil && bytes.Contains(b, []byte("\x00"+arg+"\x00"))
}

// awaitChild polls (bounded) until the starter has a child whose command
// line carries arg, and returns its PID, or 0.
func awaitChild(sp *started, arg string, d time.Duration, giveUp func() bool) int {
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) && !giveUp() {
		for _, c := range childrenOf(sp.pid) {
			if cmdlineHas(c, arg) {
				return c
			}
		}
		if sp.exited() {
			return 0
		}
		time.Sleep(50 * time.Microsecond)
	}
	return 0
}

// killIfStill SIGKILLs pid through a pidfd if, after the pidfd was opened,
// it is still parent's child with arg in its command line: a pidfd names
// one process, so the check and the kill are about the same one.
func killIfStill(pid, parent int, arg string) bool {
	fd, err := unix.PidfdOpen(pid, 0)
	if err != nil {
		return false
	}
	defer unix.Close(fd)
	if ppidOf(pid) != parent || !cmdlineHas(pid, arg) {
		return false
	}
	return unix.PidfdSendSignal(fd, unix.SIGKILL, nil, 0) == nil
}

func ppidOf(pid int) int {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return -1
	}
	i := bytes.LastIndexByte(b, ')')
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 2 {
		return -1
	}
	p, _ := strconv.Atoi(f[1])
	return p
}

// liveWith lists the live processes whose environment holds the entry kv.
func liveWith(kv string) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	want := []byte(kv + "\x00")
	var out []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		env, err := os.ReadFile("/proc/" + e.Name() + "/environ")
		if err != nil || !bytes.Contains(env, want) {
			continue
		}
		if live(pid) {
			out = append(out, pid)
		}
	}
	return out
}

// live applies the liveness rule: live unless a
// zombie with at most one thread, or dead.
func live(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	i := bytes.LastIndexByte(b, ')')
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 18 {
		return false
	}
	threads, _ := strconv.Atoi(f[17])
	return !(f[0] == "X" || (f[0] == "Z" && threads <= 1))
}

// awaitNoneMarked polls, with a growing pause, until no live process
// carries kv, and returns those still live after d.
func awaitNoneMarked(kv string, d time.Duration) []int {
	deadline := time.Now().Add(d)
	pause := 500 * time.Microsecond
	for {
		left := liveWith(kv)
		if len(left) == 0 || time.Now().After(deadline) {
			return left
		}
		time.Sleep(pause)
		pause = min(2*pause, 50*time.Millisecond)
	}
}

// killTrialMarked ends the live processes carrying kv, each through a
// pidfd opened first, the entry checked again after the open.
func killTrialMarked(kv string) {
	for _, pid := range liveWith(kv) {
		fd, err := unix.PidfdOpen(pid, 0)
		if err != nil {
			continue
		}
		if env, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pid)); err == nil && bytes.Contains(env, []byte(kv+"\x00")) {
			_ = unix.PidfdSendSignal(fd, unix.SIGKILL, nil, 0)
		}
		unix.Close(fd)
	}
}

// describe names processes for a failure message.
func describe(pids []int) string {
	var parts []string
	for _, p := range pids {
		b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", p))
		st, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", p))
		state := "?"
		if i := bytes.LastIndexByte(st, ')'); i > 0 && len(st) > i+2 {
			state = string(st[i+2])
		}
		parts = append(parts, fmt.Sprintf("%d[%s %q]", p, state, strings.ReplaceAll(strings.TrimRight(string(b), "\x00"), "\x00", " ")))
	}
	return strings.Join(parts, ", ")
}

// reaper reaps every child of this process. A driver is a subreaper (or a
// namespace's init), so its sessions' orphans come to it too. Children are
// forked under mu and Wait4 runs only under mu, so a child is registered
// before it can be reaped, and a PID is never confused with a later
// process of the same number.
type reaper struct {
	mu      sync.Mutex
	waiting map[int]chan syscall.WaitStatus
	orphans int
	sigs    chan os.Signal
}

func newReaper() *reaper {
	r := &reaper{waiting: map[int]chan syscall.WaitStatus{}, sigs: make(chan os.Signal, 1)}
	// Buffered: a SIGCHLD that arrives while one is pending is merged,
	// and each wake-up reaps every child that has exited.
	signal.Notify(r.sigs, syscall.SIGCHLD)
	go func() {
		for range r.sigs {
			r.reapAll()
		}
	}()
	return r
}

func (r *reaper) reapAll() {
	r.mu.Lock()
	defer r.mu.Unlock()
	for {
		var ws syscall.WaitStatus
		pid, err := syscall.Wait4(-1, &ws, syscall.WNOHANG, nil)
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		if err != nil || pid <= 0 {
			return
		}
		if ch, ok := r.waiting[pid]; ok {
			ch <- ws
			delete(r.waiting, pid)
		} else {
			r.orphans++
		}
	}
}

func (r *reaper) orphanCount() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.orphans
}

// started is a process forked by the reaper.
type started struct {
	pid   int
	pidfd int
	done  chan syscall.WaitStatus
	ws    *syscall.WaitStatus
}

// start forks argv with stdin from /dev/null, stdout to outPath and stderr
// to errPath (created), as the leader of nothing: it stays in our group.
func (r *reaper) start(argv, env []string, outPath, errPath string) (*started, error) {
	return r.startAttr(argv, env, outPath, errPath, nil)
}

func (r *reaper) startAttr(argv, env []string, outPath, errPath string, attr *syscall.SysProcAttr) (*started, error) {
	null, err := os.Open("/dev/null")
	if err != nil {
		return nil, err
	}
	defer null.Close()
	out, err := os.OpenFile(outPath, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return nil, err
	}
	defer out.Close()
	errf, err := os.OpenFile(errPath, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return nil, err
	}
	defer errf.Close()
	if attr == nil {
		attr = &syscall.SysProcAttr{}
	}
	pidfd := -1
	attr.PidFD = &pidfd
	s := &started{pidfd: -1, done: make(chan syscall.WaitStatus, 1)}
	r.mu.Lock()
	s.pid, err = syscall.ForkExec(argv[0], argv, &syscall.ProcAttr{
		Env:   env,
		Files: []uintptr{null.Fd(), out.Fd(), errf.Fd()},
		Sys:   attr,
	})
	if err == nil {
		r.waiting[s.pid] = s.done
	}
	r.mu.Unlock()
	if err != nil {
		return nil, fmt.Errorf("start %s: %w", argv[0], err)
	}
	s.pidfd = pidfd
	return s, nil
}

// wait waits up to d for the process to be reaped.
func (s *started) wait(d time.Duration) (syscall.WaitStatus, bool) {
	if s.ws != nil {
		return *s.ws, true
	}
	select {
	case ws := <-s.done:
		s.ws = &ws
		return ws, true
	case <-time.After(d):
		return 0, false
	}
}

// exited reports, without waiting, whether the process has exited.
func (s *started) exited() bool {
	fds := []unix.PollFd{{Fd: int32(s.pidfd), Events: unix.POLLIN}}
	n, err := unix.Poll(fds, 0)
	return err == nil && n > 0
}

func (s *started) close() {
	if s.pidfd >= 0 {
		unix.Close(s.pidfd)
		s.pidfd = -1
	}
}

// drain waits, polling with a bound, until this process has no child
// left, and returns those it still has after d.
func (r *reaper) drain(d time.Duration) []int {
	deadline := time.Now().Add(d)
	pause := time.Millisecond
	for {
		r.reapAll() // in case a SIGCHLD was merged away
		left := childrenOf(os.Getpid())
		if len(left) == 0 || time.Now().After(deadline) {
			sort.Ints(left)
			return left
		}
		time.Sleep(pause)
		pause = min(2*pause, 100*time.Millisecond)
	}
}

// killChildren SIGKILLs this process's children: each is ours while it is
// our unreaped child, checked after its pidfd is opened.
func (r *reaper) killChildren() {
	for _, c := range childrenOf(os.Getpid()) {
		fd, err := unix.PidfdOpen(c, 0)
		if err != nil {
			continue
		}
		if ppidOf(c) == os.Getpid() {
			_ = unix.PidfdSendSignal(fd, unix.SIGKILL, nil, 0)
		}
		unix.Close(fd)
	}
	r.drain(testproc.TooLong)
}

// threadsOf describes where each thread of pid waits, for a report on a
// process that hangs.
func threadsOf(pid int) string {
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*", pid))
	var parts []string
	for _, t := range tasks {
		wchan, _ := os.ReadFile(t + "/wchan")
		sc, _ := os.ReadFile(t + "/syscall")
		parts = append(parts, fmt.Sprintf("%s: %s [%s]", filepath.Base(t), wchan, strings.TrimSpace(string(sc))))
	}
	status, _ := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	for _, l := range strings.Split(string(status), "\n") {
		if strings.HasPrefix(l, "Sig") || strings.HasPrefix(l, "ShdPnd") {
			parts = append(parts, l)
		}
	}
	return fmt.Sprintf("threads %s; children %s", strings.Join(parts, "; "), describe(childrenOf(pid)))
}
