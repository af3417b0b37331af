package main

// SDK tests: real launchers in Python, Node and Go start session-starter
// and drive an MCP-style Engine (testdata/mcp_engine.py) whose tool calls
// start subprocesses; and a Go Engine in the requested form
// (testdata/goengine). Every process carries the test's mark, so
// noSurvivors sees each one the session must end.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/session-starter/session-starter/internal/testproc"
	"github.com/session-starter/session-starter/starter/launch"
)

func init() {
	testproc.Register("go-sdk-launcher", goSDKLauncher)
}

// needTool returns the path of an interpreter the test needs. Without it
// the test is skipped, except under CI=true, where CI promises python3 and
// node.
func needTool(t *testing.T, name string) string {
	t.Helper()
	path, err := exec.LookPath(name)
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is not installed, and CI=true promises it: %v", name, err)
		}
		t.Skipf("%s is not installed: %v", name, err)
	}
	return path
}

func testdata(t *testing.T, name string) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// sdkEnv is the environment of a launcher: the test's mark, and the
// session-starter under test first in PATH.
func sdkEnv(mark string) []string {
	return append(os.Environ(), markVar+"="+mark, "PATH="+filepath.Dir(binary)+string(os.PathListSeparator)+os.Getenv("PATH"))
}

// mcpEngine is the Engine's command line: it exits 7 at the end of its
// input.
func mcpEngine(t *testing.T) []string {
	return []string{needTool(t, "python3"), testdata(t, "mcp_engine.py"), "--exit-code", "7"}
}

// launcherEvent is a report line of launcher.py and launcher.js.
type launcherEvent struct {
	Event   string   `json:"event"`
	PID     int      `json:"pid"`
	Mode    string   `json:"mode"`
	Tools   []string `json:"tools"`
	Spawned []int    `json:"spawned"`
	Code    *int     `json:"code"`
	Signal  *string  `json:"signal"`
}

// sdkLaunchers are the launchers in testdata, by name.
var sdkLaunchers = []struct {
	name   string
	interp string
	script string
}{
	{"python", "python3", "launcher.py"},
	{"node", "node", "launcher.js"},
}

func startLauncher(t *testing.T, mark string, argv ...string) *session {
	t.Helper()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = sdkEnv(mark)
	return startCmd(t, mark, cmd)
}

// event reads the launcher's next report.
func (s *session) event() launcherEvent {
	s.t.Helper()
	line := s.line()
	var e launcherEvent
	if err := json.Unmarshal([]byte(line), &e); err != nil {
		s.t.Fatalf("launcher report %q: %v", line, err)
	}
	return e
}

// ready checks the launcher's first report: the ack was read, the tools
// listed, and the processes the tool call started run in the session's
// group, carrying the mark.
func ready(t *testing.T, mark string, e launcherEvent) {
	t.Helper()
	if e.Event != "ready" || e.PID <= 1 || (e.Mode != "group" && e.Mode != "cgroup") {
		t.Fatalf("launcher report = %+v, want ready with the ack's pid and mode group", e)
	}
	if !slices.Equal(e.Tools, []string{"spawn", "echo"}) {
		t.Fatalf("tools/list = %q, want spawn and echo", e.Tools)
	}
	if len(e.Spawned) != 3 {
		t.Fatalf("tools/call spawn started %v, want 3 processes", e.Spawned)
	}
	for _, pid := range e.Spawned {
		if pgid, err := syscall.Getpgid(pid); err != nil || pgid != e.PID {
			t.Fatalf("spawned pid %d: group %d, %v; want the Engine's group %d", pid, pgid, err, e.PID)
		}
		// A process the tool call has just started may still be in its
		// execve, which shows no environment until the new program's is
		// set up: look again, within a bound.
		var live []int
		for deadline := time.Now().Add(testproc.TooLong); ; time.Sleep(time.Millisecond) {
			if live = marked(mark); slices.Contains(live, pid) {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("spawned pid %d is not live and marked (marked: %v)", pid, live)
			}
		}
	}
}

func TestSDKLauncherCleanShutdownReportsTheEnginesStatus(t *testing.T) {
	for _, l := range sdkLaunchers {
		t.Run(l.name, func(t *testing.T) {
			mark := newMark(t)
			argv := append([]string{needTool(t, l.interp), testdata(t, l.script), "clean", "--"}, mcpEngine(t)...)
			run := startLauncher(t, mark, argv...)
			ready(t, mark, run.event())
			fmt.Fprintln(run.in, "go on")
			if e := run.event(); e.Event != "exit" || e.Code == nil || *e.Code != 7 || e.Signal != nil {
				t.Fatalf("launcher report = %+v, want exit with the Engine's code 7", e)
			}
			wantExit(t, run.wait(), 0, run.stderr)
			noSurvivors(t, mark)
		})
	}
}

func TestSDKLauncherSIGKILLedLeavesNoSurvivor(t *testing.T) {
	for _, l := range sdkLaunchers {
		t.Run(l.name, func(t *testing.T) {
			mark := newMark(t)
			argv := append([]string{needTool(t, l.interp), testdata(t, l.script), "hang", "--"}, mcpEngine(t)...)
			run := startLauncher(t, mark, argv...)
			ready(t, mark, run.event())
			if err := run.cmd.Process.Kill(); err != nil {
				t.Fatal(err)
			}
			run.wait()
			noSurvivors(t, mark)
		})
	}
}

func TestSDKLauncherClosingTheControlPipeLeavesNoSurvivor(t *testing.T) {
	for _, l := range sdkLaunchers {
		t.Run(l.name, func(t *testing.T) {
			mark := newMark(t)
			argv := append([]string{needTool(t, l.interp), testdata(t, l.script), "control", "--"}, mcpEngine(t)...)
			run := startLauncher(t, mark, argv...)
			ready(t, mark, run.event())
			fmt.Fprintln(run.in, "go on")
			if e := run.event(); e.Event != "exit" || e.Signal == nil || *e.Signal != "SIGKILL" {
				t.Fatalf("launcher report = %+v, want the Engine's death by SIGKILL", e)
			}
			wantExit(t, run.wait(), 0, run.stderr)
			noSurvivors(t, mark)
		})
	}
}

// readmeBlock returns the first fenced code block of language lang in
// README.md's section "Using it from a launcher".
func readmeBlock(t *testing.T, lang string) string {
	t.Helper()
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(readme), "\n## Using it from a launcher\n")
	if !ok {
		t.Fatal(`README.md has no section "Using it from a launcher"`)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	_, block, ok := strings.Cut(section, "\n```"+lang+"\n")
	if !ok {
		t.Fatalf("README.md's launcher section has no %s block", lang)
	}
	block, _, _ = strings.Cut(block, "\n```\n")
	return block
}

// TestReadmeLaunchersRunAsShown runs the Python and Node examples of the
// README as they stand, against the session-starter under test.
func TestReadmeLaunchersRunAsShown(t *testing.T) {
	for _, tt := range []struct{ name, interp, lang, flag string }{
		{"python", "python3", "python", "-c"},
		{"node", "node", "js", "-e"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			mark := newMark(t)
			cmd := exec.Command(needTool(t, tt.interp), tt.flag, readmeBlock(t, tt.lang))
			cmd.Env = sdkEnv(mark)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			done := make(chan struct{})
			var out []byte
			var err error
			go func() {
				out, err = cmd.Output()
				close(done)
			}()
			select {
			case <-done:
			case <-time.After(testproc.TooLong):
				_ = cmd.Process.Kill()
				<-done
				t.Fatalf("the README's %s example did not end within %v", tt.name, testproc.TooLong)
			}
			if err != nil {
				t.Fatalf("the README's %s example: %v; stderr: %s", tt.name, err, &stderr)
			}
			want := regexp.MustCompile(`^contained: Engine pid [0-9]+ mode c?group\ngot hello\nexit status 0\n$`)
			if !want.Match(out) {
				t.Fatalf("the README's %s example printed %q, want %s", tt.name, out, want)
			}
			noSurvivors(t, mark)
		})
	}
}

// rpc is a JSON-RPC client over a launched session's stdio.
type rpc struct {
	t     *testing.T
	s     *launch.Session
	lines *bufio.Reader
	id    int
}

func (c *rpc) call(method string, params any) json.RawMessage {
	c.t.Helper()
	c.id++
	msg, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": c.id, "method": method, "params": params})
	if err != nil {
		c.t.Fatal(err)
	}
	if _, err := c.s.Stdin.Write(append(msg, '\n')); err != nil {
		c.t.Fatal(err)
	}
	_ = c.s.Stdout.SetReadDeadline(time.Now().Add(testproc.TooLong))
	line, err := c.lines.ReadBytes('\n')
	if err != nil {
		c.t.Fatalf("%s: read the reply: %v (got %q); stderr: %s", method, err, line, c.s.StderrTail())
	}
	var reply struct {
		ID     int             `json:"id"`
		Result json.RawMessage `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal(line, &reply); err != nil || reply.ID != c.id || reply.Error != nil {
		c.t.Fatalf("%s: reply %q (%v), want a result for id %d", method, line, err, c.id)
	}
	return reply.Result
}

// spawn runs the MCP handshake and a tools/call that starts three
// processes, and returns their PIDs.
func (c *rpc) spawn() []int {
	c.t.Helper()
	c.call("initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "go", "version": "1"}})
	c.call("tools/list", nil)
	var res struct {
		Structured struct {
			PIDs []int `json:"pids"`
		} `json:"structuredContent"`
	}
	if err := json.Unmarshal(c.call("tools/call", map[string]any{"name": "spawn", "arguments": map[string]any{"count": 3}}), &res); err != nil || len(res.Structured.PIDs) != 3 {
		c.t.Fatalf("tools/call spawn = %+v, %v; want 3 PIDs", res, err)
	}
	return res.Structured.PIDs
}

func launchMCP(t *testing.T, mark string, control bool) (*launch.Session, *rpc) {
	t.Helper()
	var stderr lockedBuffer
	s, err := launch.Start(context.Background(), launch.Options{
		Binary:      binary,
		Argv:        mcpEngine(t),
		Env:         sdkEnv(mark),
		Stderr:      &stderr,
		ControlPipe: control,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = s.Process.Kill()
		_, _ = s.Wait()
		s.Stdout.Close()
	})
	return s, &rpc{t: t, s: s, lines: bufio.NewReader(s.Stdout)}
}

func waitLaunched(t *testing.T, s *launch.Session) syscall.WaitStatus {
	t.Helper()
	state, err := s.Wait()
	if err != nil {
		t.Fatalf("Session.Wait() = %v", err)
	}
	return state.Sys().(syscall.WaitStatus)
}

func TestGoLaunchDrivesTheMCPEngineAndGetsItsStatus(t *testing.T) {
	mark := newMark(t)
	s, c := launchMCP(t, mark, false)
	for _, pid := range c.spawn() {
		if pgid, err := syscall.Getpgid(pid); err != nil || pgid != s.PID {
			t.Fatalf("spawned pid %d: group %d, %v; want %d", pid, pgid, err, s.PID)
		}
	}
	s.Stdin.Close()
	wantExit(t, waitLaunched(t, s), 7, text(s.StderrTail()))
	noSurvivors(t, mark)
}

func TestGoLaunchClosingTheControlPipeLeavesNoSurvivor(t *testing.T) {
	mark := newMark(t)
	s, c := launchMCP(t, mark, true)
	c.spawn()
	s.Control.Close()
	wantSignal(t, waitLaunched(t, s), syscall.SIGKILL, text(s.StderrTail()))
	noSurvivors(t, mark)
}

// goSDKLauncher launches the MCP Engine with launch.Start, has it spawn,
// prints "ready", and waits for the end of its stdin.
func goSDKLauncher(args []string) int {
	s, err := launch.Start(context.Background(), launch.Options{
		Binary: os.Getenv("SESSION_STARTER_BIN"),
		Argv:   args,
		Stderr: os.Stderr,
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	lines := bufio.NewReader(s.Stdout)
	for i, msg := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"spawn","arguments":{"count":3}}}`,
	} {
		fmt.Fprintln(s.Stdin, msg)
		if l, err := lines.ReadString('\n'); err != nil || !strings.Contains(l, `"id": `+strconv.Itoa(i+1)) {
			fmt.Fprintf(os.Stderr, "reply %q, %v\n", l, err)
			return 1
		}
	}
	fmt.Println("ready")
	_, _ = io.Copy(io.Discard, os.Stdin)
	return 0
}

func TestGoLauncherSIGKILLedLeavesNoSurvivor(t *testing.T) {
	mark := newMark(t)
	cmd := helperCommand(t, mark, "go-sdk-launcher", mcpEngine(t)...)
	cmd.Env = append(cmd.Env, "PATH="+filepath.Dir(binary)+string(os.PathListSeparator)+os.Getenv("PATH"))
	run := startCmd(t, mark, cmd)
	if l := run.line(); l != "ready" {
		t.Fatalf("the Go launcher said %q, want ready", l)
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	run.wait()
	noSurvivors(t, mark)
}

// goEngineVar names a build of testdata/goengine made already, which
// goEngine copies instead of building one (scripts/vm/kernels builds it on
// the host).
const goEngineVar = "SESSION_STARTER_TEST_GOENGINE"

// goEngine returns a fresh copy of testdata/goengine, built once per run
// (or $SESSION_STARTER_TEST_GOENGINE), in a directory of its own, where
// its init.log is written.
func goEngine(t *testing.T) string {
	t.Helper()
	goEngineOnce.Do(func() {
		if src := os.Getenv(goEngineVar); src != "" && !portable && os.Getenv(gcflagsVar) == "" {
			goEngineBuilt = src // built already, as the product is (productVar)
			return
		}
		goEngineBuilt = filepath.Join(filepath.Dir(binary), "goengine-build", "goengine")
		build := exec.Command("go", append(append([]string{"build"}, buildFlags...), "-o", goEngineBuilt, "./testdata/goengine")...)
		build.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := build.CombinedOutput(); err != nil {
			goEngineErr = fmt.Errorf("build testdata/goengine: %v\n%s", err, out)
		}
	})
	if goEngineErr != nil {
		t.Fatal(goEngineErr)
	}
	dir := t.TempDir()
	b, err := os.ReadFile(goEngineBuilt)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "goengine")
	if err := os.WriteFile(path, b, 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

var (
	goEngineOnce  sync.Once
	goEngineBuilt string
	goEngineErr   error
)

// initLog reads the goengine's init.log: one "PID ROLE" line per process
// that ran its init functions.
func initLog(t *testing.T, engine string) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(filepath.Dir(engine), "init.log"))
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
}

// startGoEngine runs the goengine as "goengine", found in PATH (argv[0]
// is then a name to resolve, not a path), exiting code at the end of its
// input. pathHead, when set, comes first in PATH; requested sets the
// request variable.
func startGoEngine(t *testing.T, mark, engine, pathHead string, requested bool, code int) *session {
	t.Helper()
	// PATH without any session-starter but the one of pathHead.
	dirs := []string{filepath.Dir(engine)}
	for _, d := range filepath.SplitList(os.Getenv("PATH")) {
		if _, err := os.Stat(filepath.Join(d, "session-starter")); err != nil && d != "" {
			dirs = append(dirs, d)
		}
	}
	path := strings.Join(dirs, string(os.PathListSeparator))
	if pathHead != "" {
		path = pathHead + string(os.PathListSeparator) + path
	}
	cmd := exec.Command(engine, strconv.Itoa(code))
	cmd.Path, cmd.Args = engine, []string{"goengine", strconv.Itoa(code)}
	cmd.Env = append(os.Environ(), markVar+"="+mark, "PATH="+path)
	if requested {
		cmd.Env = append(cmd.Env, launch.RequestEnv+"=1")
	}
	return startCmd(t, mark, cmd)
}

// goEngineReport is what the goengine prints as the Engine.
type goEngineReport struct {
	argv      string
	request   string
	pid, pgid int
	child     int
}

func (s *session) goEngineReport() goEngineReport {
	s.t.Helper()
	var r goEngineReport
	r.argv = s.line()
	r.request = s.line()
	if _, err := fmt.Sscanf(s.line(), "pid %d pgid %d", &r.pid, &r.pgid); err != nil {
		s.t.Fatal(err)
	}
	if _, err := fmt.Sscanf(s.line(), "child %d", &r.child); err != nil {
		s.t.Fatal(err)
	}
	return r
}

// roles counts the processes of init.log by role, and returns the PIDs
// that ran it as a plain process.
func roles(t *testing.T, engine string) (map[string]int, []int) {
	t.Helper()
	count := map[string]int{}
	var plain []int
	for _, l := range initLog(t, engine) {
		pid, role, _ := strings.Cut(l, " ")
		count[role]++
		if role == "process" {
			n, _ := strconv.Atoi(pid)
			plain = append(plain, n)
		}
	}
	return count, plain
}

// TestRequestedFormWithAnInstalledStarterRunsInitOnlyInStarterAndEngine:
// with session-starter in PATH, the gate and the guard are that binary,
// so the Engine's init functions run twice — in the process that became
// the starter, and in the Engine — and the command line, argv[0] included,
// is the Engine's.
func TestRequestedFormWithAnInstalledStarterRunsInitOnlyInStarterAndEngine(t *testing.T) {
	mark := newMark(t)
	engine := goEngine(t)
	s := startGoEngine(t, mark, engine, filepath.Dir(binary), true, 7)
	pid := s.ack()
	r := s.goEngineReport()
	if r.argv != `argv ["goengine" "7"]` || r.request != `request false ""` {
		t.Fatalf("the Engine saw %s, %s; want argv [goengine 7] unchanged and no request variable", r.argv, r.request)
	}
	if r.pid != pid || r.pgid != pid {
		t.Fatalf("the Engine has pid %d, group %d; want the ack's pid %d for both", r.pid, r.pgid, pid)
	}
	s.in.Close()
	wantExit(t, s.wait(), 7, s.stderr)
	noSurvivors(t, mark)
	count, plain := roles(t, engine)
	if len(count) != 1 || !slices.Equal(plain, []int{s.cmd.Process.Pid, pid}) {
		t.Fatalf("init ran in %v (plain: %v); want only the starter %d, then the Engine %d", count, plain, s.cmd.Process.Pid, pid)
	}
}

// TestRequestedFormWithoutAnInstalledStarterPlaysTheGuardItself: the
// fallback to /proc/self/exe. The gate and, from Linux 6.9, the guard are
// raw children of the starter: they run no init. Where the guard is the
// re-executed binary, the init functions run in it too.
func TestRequestedFormWithoutAnInstalledStarterPlaysTheGuardItself(t *testing.T) {
	mark := newMark(t)
	engine := goEngine(t)
	s := startGoEngine(t, mark, engine, "", true, 3)
	pid := s.ack()
	r := s.goEngineReport()
	if r.argv != `argv ["goengine" "3"]` || r.pid != pid || r.pgid != pid {
		t.Fatalf("the Engine: %+v; want argv [goengine 3] and the ack's pid %d as pid and group", r, pid)
	}
	s.in.Close()
	wantExit(t, s.wait(), 3, s.stderr)
	noSurvivors(t, mark)
	count, plain := roles(t, engine)
	want := map[string]int{"process": 2}
	if !rawGuard() {
		want["guard"] = 1
	}
	if guardPins() {
		// Without a pidfd group signal (before Linux 6.9, and macOS's
		// paths) the guard pins E with a child of its own.
		want["pin"] = 1
	}
	if portable {
		// macOS's paths: the gate is this binary again.
		want["gate"] = 1
	}
	if fmt.Sprint(count) != fmt.Sprint(want) || !slices.Equal(plain, []int{s.cmd.Process.Pid, pid}) {
		t.Fatalf("init ran in %v (plain: %v); want %v, the starter %d and the Engine %d", count, plain, want, s.cmd.Process.Pid, pid)
	}
}

func TestRequestedFormStarterSIGKILLedLeavesNoSurvivor(t *testing.T) {
	mark := newMark(t)
	engine := goEngine(t)
	s := startGoEngine(t, mark, engine, filepath.Dir(binary), true, 0)
	s.ack()
	r := s.goEngineReport()
	// Eventually: os/exec's Start returns once the child's exec has closed
	// its close-on-exec descriptors, which the kernel does before it sets
	// up the new environment that /proc/PID/environ shows.
	testproc.Eventually(t, fmt.Sprintf("the Engine's child %d must be live and marked", r.child), func() bool {
		return slices.Contains(marked(mark), r.child)
	})
	s.signal(syscall.SIGKILL)
	s.wait()
	noSurvivors(t, mark)
}

// TestGoEngineWithoutTheRequestRunsAsItself: no ack, no gate, no guard, a
// single run of init.
func TestGoEngineWithoutTheRequestRunsAsItself(t *testing.T) {
	mark := newMark(t)
	engine := goEngine(t)
	s := startGoEngine(t, mark, engine, filepath.Dir(binary), false, 5)
	r := s.goEngineReport()
	if r.argv != `argv ["goengine" "5"]` || r.pid != s.cmd.Process.Pid {
		t.Fatalf("the program printed %+v first; want its own report, as pid %d", r, s.cmd.Process.Pid)
	}
	s.in.Close()
	wantExit(t, s.wait(), 5, s.stderr)
	// Not a session: its child outlives it, and the cleanup ends it.
	if count, plain := roles(t, engine); len(count) != 1 || !slices.Equal(plain, []int{r.pid}) {
		t.Fatalf("init ran in %v (plain: %v); want only %d", count, plain, r.pid)
	}
	// killMarked may name a process twice: once per look while it dies.
	if left := slices.Compact(killMarked(mark)); !slices.Equal(left, []int{r.child}) {
		t.Fatalf("left after the program: %v; want its child %d", left, r.child)
	}
}

// text is a string for wantExit's report argument.
type text string

func (t text) String() string { return string(t) }

// TestGoLaunchStatusPipeCarriesTheRecords: with a control pipe and extra
// files before it, the status pipe's descriptor number is still right.
func TestGoLaunchStatusPipeCarriesTheRecords(t *testing.T) {
	mark := newMark(t)
	extra, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer extra.Close()
	s, err := launch.Start(context.Background(), launch.Options{
		Argv:        []string{"sh", "-c", "read x; exit 6"},
		Binary:      binary,
		Env:         append(os.Environ(), markVar+"="+mark),
		ExtraFiles:  []*os.File{extra},
		ControlPipe: true,
		StatusPipe:  true,
	})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Status.Close()
	defer s.Stdout.Close()
	if _, err := s.Stdin.Write([]byte("x\n")); err != nil {
		t.Fatal(err)
	}
	state, err := s.Wait()
	if err != nil || state.ExitCode() != 6 {
		t.Fatalf("Wait() = %v, %v; want exit 6", state, err)
	}
	recs := statusRecords(t, s.Status)
	if len(recs) != 2 || recs[0]["event"] != "started" || int(recs[0]["pid"].(float64)) != s.PID {
		t.Fatalf("status records = %v, want started for pid %d, then ended", recs, s.PID)
	}
	if ended := recs[1]; ended["event"] != "ended" || ended["exit_code"] != 6.0 {
		t.Fatalf("ended = %v, want the Engine's exit 6", ended)
	}
	noSurvivors(t, mark)
}

// TestTheRequestedFormAsPID1RunsItsEngine: a Go Engine in the requested
// form as a container's PID 1 (SESSION_STARTER_CONTAIN=1 in its
// ENTRYPOINT's environment) runs, acks and mirrors its Engine's status; it
// watches no parent, which an init has not.
func TestTheRequestedFormAsPID1RunsItsEngine(t *testing.T) {
	if _, err := exec.LookPath("unshare"); err != nil || os.Getuid() != 0 {
		t.Skip("needs unshare, run as root")
	}
	mark := newMark(t)
	cmd := exec.Command("unshare", "--pid", "--fork", "--mount-proc", goEngine(t), "4")
	cmd.Env = append(os.Environ(), markVar+"="+mark, launch.RequestEnv+"=1")
	s := startCmd(t, mark, cmd)
	if pid, _ := s.ackMode(); pid <= 1 {
		t.Fatalf("ack names pid %d, want the Engine's", pid)
	}
	s.in.Close()
	s.in = nil
	wantExit(t, s.wait(), 4, s.stderr)
}
