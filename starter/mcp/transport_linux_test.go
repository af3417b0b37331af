package mcp_test

// The official Go client against a real stdio server, through the
// Transport and through the SDK's own CommandTransport. The server's one
// tool starts a child that sleeps and a setsid'd grandchild (sleep), and
// returns their PIDs. The bare runs prove that the fixture leaks; the
// runs through session-starter that nothing is left.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/sys/unix"

	"github.com/session-starter/session-starter/starter/launch"
	ssmcp "github.com/session-starter/session-starter/starter/mcp"
)

const (
	// roleVar makes the test binary a server, the server's child, or a
	// client (see TestMain).
	roleVar = "SESSION_STARTER_MCP_TEST_ROLE"
	// modeVar picks the client's transport: "starter" or "bare".
	modeVar = "SESSION_STARTER_MCP_TEST_MODE"
	// binVar names the session-starter binary to a client process.
	binVar = "SESSION_STARTER_MCP_TEST_BIN"
)

// raceEnv keeps the race detector's exit delay (1 s by default) out of
// the servers' and clients' ends.
const raceEnv = "GORACE=atexit_sleep_ms=0"

func TestMain(m *testing.M) {
	switch os.Getenv(roleVar) {
	case "server":
		runServer()
		return
	case "child":
		runChild()
		return
	case "client":
		runClient()
		return
	}
	code := m.Run()
	if dir := binDir(); dir != "" {
		os.RemoveAll(dir)
	}
	os.Exit(code)
}

// spawned is the result of the server's tool.
type spawned struct {
	Server     int               `json:"server"`
	Child      int               `json:"child"`
	Grandchild int               `json:"grandchild"`
	Env        map[string]string `json:"env"`
}

// runServer is the stdio server: it exits when its stdin ends, as the
// SDK's servers do, leaving what its tool started.
func runServer() {
	s := sdk.NewServer(&sdk.Implementation{Name: "fixture", Version: "v0.0.1"}, nil)
	sdk.AddTool(s, &sdk.Tool{Name: "spawn", Description: "start a child and a setsid'd grandchild"},
		func(context.Context, *sdk.CallToolRequest, struct{}) (*sdk.CallToolResult, spawned, error) {
			child := exec.Command(os.Args[0])
			child.Env = append(os.Environ(), roleVar+"=child")
			child.Stderr = os.Stderr
			out, err := child.StdoutPipe()
			if err != nil {
				return nil, spawned{}, err
			}
			if err := child.Start(); err != nil {
				return nil, spawned{}, err
			}
			line, err := bufio.NewReader(out).ReadString('\n')
			if err != nil {
				return nil, spawned{}, fmt.Errorf("the child's grandchild line: %v", err)
			}
			g, err := strconv.Atoi(strings.TrimSpace(line))
			if err != nil {
				return nil, spawned{}, err
			}
			env := map[string]string{}
			for _, name := range ssmcp.CarriedEnv {
				env[name] = os.Getenv(name)
			}
			return nil, spawned{Server: os.Getpid(), Child: child.Process.Pid, Grandchild: g, Env: env}, nil
		})
	if err := s.Run(context.Background(), &sdk.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, "server:", err)
	}
}

// runChild starts a sleep in a session of its own (as agents' background
// jobs do), writes its PID and sleeps.
func runChild() {
	g := exec.Command("sleep", "300")
	g.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := g.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
		os.Exit(1)
	}
	fmt.Println(g.Process.Pid)
	time.Sleep(300 * time.Second)
}

// runClient connects the official client with the transport modeVar
// names, calls the tool, writes its result as one line and waits to be
// killed.
func runClient() {
	ctx := context.Background()
	var t sdk.Transport
	if os.Getenv(modeVar) == "bare" {
		t = &sdk.CommandTransport{Command: serverCmd()}
	} else {
		t = &ssmcp.Transport{Options: serverOptions(os.Getenv(binVar))}
	}
	c := sdk.NewClient(&sdk.Implementation{Name: "client", Version: "v0.0.1"}, nil)
	cs, err := c.Connect(ctx, t, nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, "client:", err)
		os.Exit(1)
	}
	got, err := callSpawn(ctx, cs)
	if err != nil {
		fmt.Fprintln(os.Stderr, "client:", err)
		os.Exit(1)
	}
	b, _ := json.Marshal(got)
	fmt.Println(string(b))
	time.Sleep(300 * time.Second)
}

func serverCmd() *exec.Cmd {
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), roleVar+"=server", raceEnv)
	cmd.Stderr = os.Stderr
	return cmd
}

func serverOptions(bin string) launch.Options {
	return launch.Options{
		Argv:   []string{os.Args[0]},
		Binary: bin,
		Env:    append(os.Environ(), roleVar+"=server", raceEnv),
		Stderr: os.Stderr,
	}
}

// connectAndSpawn connects the official client through tr and calls the
// spawn tool. The processes it started are killed at the test's end.
func connectAndSpawn(t *testing.T, tr sdk.Transport) (*sdk.ClientSession, spawned, []proc) {
	t.Helper()
	ctx := context.Background()
	c := sdk.NewClient(&sdk.Implementation{Name: "client", Version: "v0.0.1"}, nil)
	cs, err := c.Connect(ctx, tr, nil)
	if err != nil {
		t.Fatal(err)
	}
	got, err := callSpawn(ctx, cs)
	if err != nil {
		_ = cs.Close()
		t.Fatal(err)
	}
	ps := identify(t, got)
	t.Cleanup(func() { killOurs(ps) })
	return cs, got, ps
}

func callSpawn(ctx context.Context, cs *sdk.ClientSession) (spawned, error) {
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "spawn"})
	if err != nil {
		return spawned{}, err
	}
	if res.IsError || len(res.Content) == 0 {
		return spawned{}, fmt.Errorf("the tool failed: %+v", res.Content)
	}
	text, ok := res.Content[0].(*sdk.TextContent)
	if !ok {
		return spawned{}, fmt.Errorf("the tool's content is %T", res.Content[0])
	}
	var got spawned
	if err := json.Unmarshal([]byte(text.Text), &got); err != nil {
		return spawned{}, fmt.Errorf("the tool's result %q: %v", text.Text, err)
	}
	if got.Server <= 1 || got.Child <= 1 || got.Grandchild <= 1 {
		return spawned{}, fmt.Errorf("the tool's result names no processes: %+v", got)
	}
	return got, nil
}

// binDirOnce is the directory of the session-starter built for these
// tests.
var binDirOnce struct {
	sync.Mutex
	dir string
}

func binDir() string {
	binDirOnce.Lock()
	defer binDirOnce.Unlock()
	return binDirOnce.dir
}

// starterBinary builds cmd/session-starter of the module this one is
// nested in, as shipped (CGO_ENABLED=0, without -race), once.
var starterBinary = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "session-starter-mcp-test-")
	if err != nil {
		return "", err
	}
	binDirOnce.Lock()
	binDirOnce.dir = dir
	binDirOnce.Unlock()
	bin := filepath.Join(dir, "session-starter")
	build := exec.Command("go", "build", "-o", bin, "./cmd/session-starter")
	build.Dir = filepath.Join("..", "..")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build ./cmd/session-starter in the enclosing module: %v\n%s", err, out)
	}
	return bin, nil
})

func binary(t *testing.T) string {
	t.Helper()
	bin, err := starterBinary()
	if err != nil {
		t.Fatal(err)
	}
	return bin
}

// proc is a process known by its PID and its start time, so that a PID
// given to another process since is not taken for it.
type proc struct {
	name  string
	pid   int
	start string
}

// stat returns the state and the start time of pid from /proc.
func stat(pid int) (state byte, start string, ok bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, "", false
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, "", false
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 20 {
		return 0, "", false
	}
	// After the command: state is field 3 of stat, starttime field 22.
	return f[0][0], f[19], true
}

// identify records the processes of a tool's result, each alive now.
func identify(t *testing.T, got spawned) []proc {
	t.Helper()
	var out []proc
	for _, p := range []struct {
		name string
		pid  int
	}{{"server", got.Server}, {"child", got.Child}, {"grandchild", got.Grandchild}} {
		state, start, ok := stat(p.pid)
		if !ok || state == 'Z' {
			t.Fatalf("the %s (%d) is not alive right after the tool call", p.name, p.pid)
		}
		out = append(out, proc{p.name, p.pid, start})
	}
	return out
}

// alive reports whether p is still the process it was and not a zombie.
func (p proc) alive() bool {
	state, start, ok := stat(p.pid)
	return ok && start == p.start && state != 'Z' && state != 'X'
}

// living returns the processes of ps that are alive.
func living(ps []proc) []proc {
	var out []proc
	for _, p := range ps {
		if p.alive() {
			out = append(out, p)
		}
	}
	return out
}

// goneBy waits until none of ps is alive, or deadline; it returns those
// alive at the deadline.
func goneBy(ps []proc, deadline time.Time) []proc {
	for {
		left := living(ps)
		if len(left) == 0 || time.Now().After(deadline) {
			return left
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// killOurs SIGKILLs those of ps that are still the processes this test
// started: through a pidfd, with the start time checked after the open,
// so that no other process is signalled.
func killOurs(ps []proc) {
	for _, p := range ps {
		fd, err := unix.PidfdOpen(p.pid, 0)
		if err != nil {
			continue
		}
		if p.alive() {
			_ = unix.PidfdSendSignal(fd, unix.SIGKILL, nil, 0)
		}
		unix.Close(fd)
	}
}

// bound is the end's bound for these tests' sessions from t0 (the
// client's Close or death): the stdin grace, the grace (none), and 1 s.
const bound = ssmcp.DefaultStdinGrace + time.Second

func TestTheOfficialClientsCloseLeavesNoProcessOfTheSession(t *testing.T) {
	bin := binary(t)
	tr := &ssmcp.Transport{Options: serverOptions(bin)}
	cs, got, ps := connectAndSpawn(t, tr)
	if tr.PID() != got.Server {
		t.Errorf("the transport's PID is %d, the server's %d", tr.PID(), got.Server)
	}

	t0 := time.Now()
	if err := cs.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	if left := goneBy(ps, t0.Add(bound)); len(left) > 0 {
		t.Fatalf("%v after the client's Close these are left: %+v", bound, left)
	}
	ended, err := tr.Wait()
	if err != nil {
		t.Fatal(err)
	}
	if ended.Reason != "engine-exit" || ended.ExitCode == nil || *ended.ExitCode != 0 {
		t.Errorf("the ended record says %q, exit code %v: want the server's own exit 0 on its stdin's end", ended.Reason, ended.ExitCode)
	}
}

func TestTheSDKsCommandTransportLeavesTheFixturesProcessesOnClose(t *testing.T) {
	cs, _, ps := connectAndSpawn(t, &sdk.CommandTransport{Command: serverCmd()})
	t0 := time.Now()
	if err := cs.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	time.Sleep(time.Until(t0.Add(bound)))
	if len(living(ps)) == 0 {
		t.Fatal("the bare run left nothing: the fixture proves no leak")
	}
}

// runClientProcess starts the test binary as a client with the transport
// mode names, and returns it with the tool's result once it has called
// the tool.
func runClientProcess(t *testing.T, mode string) (*exec.Cmd, []proc) {
	t.Helper()
	bin := ""
	if mode == "starter" {
		bin = binary(t)
	}
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), roleVar+"=client", modeVar+"="+mode, binVar+"="+bin, raceEnv)
	// A file, not a buffer: the server's child inherits it, and a copy
	// of it would hold the client's Wait until the child's end.
	stderr, err := os.CreateTemp(t.TempDir(), "client-stderr")
	if err != nil {
		t.Fatal(err)
	}
	defer stderr.Close()
	cmd.Stderr = stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		if t.Failed() {
			b, _ := os.ReadFile(stderr.Name())
			t.Logf("the client's stderr:\n%s", b)
		}
	})
	lines := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(out).ReadString('\n')
		lines <- line
	}()
	var line string
	select {
	case line = <-lines:
	case <-time.After(2 * time.Minute):
		t.Fatal("the client did not call the tool within 2 minutes")
	}
	var got spawned
	if err := json.Unmarshal([]byte(line), &got); err != nil {
		t.Fatalf("the client's line %q: %v", line, err)
	}
	ps := identify(t, got)
	t.Cleanup(func() { killOurs(ps) })
	return cmd, ps
}

// killClient SIGKILLs the client and returns the moment it was reaped.
func killClient(t *testing.T, cmd *exec.Cmd) time.Time {
	t.Helper()
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	return time.Now()
}

func TestAClientSIGKILLedLeavesNoProcessOfTheSession(t *testing.T) {
	cmd, ps := runClientProcess(t, "starter")
	t0 := killClient(t, cmd)
	if left := goneBy(ps, t0.Add(bound)); len(left) > 0 {
		t.Fatalf("%v after the client's SIGKILL these are left: %+v", bound, left)
	}
}

func TestAClientSIGKILLedWithTheSDKsCommandTransportLeavesTheFixturesProcesses(t *testing.T) {
	cmd, ps := runClientProcess(t, "bare")
	t0 := killClient(t, cmd)
	time.Sleep(time.Until(t0.Add(bound)))
	if len(living(ps)) == 0 {
		t.Fatal("the bare run left nothing: the fixture proves no leak")
	}
}

func TestAnExplicitEnvCarriesTheLedgerDirectoryAndTheSessionMark(t *testing.T) {
	bin := binary(t)
	ledger, xdg := t.TempDir(), t.TempDir()
	// A ledger is refused when it is open to others.
	if err := os.Chmod(ledger, 0o700); err != nil {
		t.Fatal(err)
	}
	t.Setenv("SESSION_STARTER_LEDGER_DIR", ledger)
	t.Setenv("XDG_RUNTIME_DIR", xdg)
	t.Setenv(launch.SessionVar, "outer")
	// What the TypeScript and Python SDKs pass a server by default.
	opts := serverOptions(bin)
	opts.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME"), roleVar + "=server", raceEnv}
	tr := &ssmcp.Transport{Options: opts}
	cs, got, _ := connectAndSpawn(t, tr)
	defer cs.Close()
	if got.Env["SESSION_STARTER_LEDGER_DIR"] != ledger || got.Env["XDG_RUNTIME_DIR"] != xdg {
		t.Errorf("the server's ledger directory is %q and runtime directory %q, want %q and %q",
			got.Env["SESSION_STARTER_LEDGER_DIR"], got.Env["XDG_RUNTIME_DIR"], ledger, xdg)
	}
	mark := got.Env[launch.SessionVar]
	id, nested := strings.CutPrefix(mark, "outer:")
	if !nested || id == "" {
		t.Fatalf("the server's session mark is %q: want the client's (outer) with the session's id after it", mark)
	}
	// The user's reclaim, from an environment of their own, sees the
	// session where the transport's environment put its record.
	reclaim := exec.Command(bin, "--reclaim", "--dry-run")
	reclaim.Env = []string{"PATH=" + os.Getenv("PATH"), "SESSION_STARTER_LEDGER_DIR=" + ledger}
	out, err := reclaim.CombinedOutput()
	if err != nil {
		t.Fatalf("--reclaim --dry-run: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "session "+id+": live") {
		t.Errorf("--reclaim --dry-run does not list the session %s as live:\n%s", id, out)
	}
}

func TestCloseEndsAServerThatIgnoresItsStdinsEndAndSIGTERMAfterTheStdinGrace(t *testing.T) {
	bin := binary(t)
	const stdinGrace, grace = 300 * time.Millisecond, 500 * time.Millisecond
	tr := ssmcp.Command("sh", "-c", "trap '' TERM; exec sleep 300")
	tr.Options.Binary, tr.Options.StdinGrace, tr.Options.Grace = bin, stdinGrace, grace
	ctx, cancel := context.WithCancel(context.Background())
	conn, err := tr.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// The start's context ends: the session does not.
	cancel()
	state, start, ok := stat(tr.PID())
	if !ok || state == 'Z' {
		t.Fatalf("the server (%d) is not alive after Connect", tr.PID())
	}
	server := []proc{{"server", tr.PID(), start}}
	t.Cleanup(func() { killOurs(server) })
	if _, err := tr.Connect(context.Background()); err == nil {
		t.Error("a second Connect of the same Transport succeeded")
	}

	t0 := time.Now()
	if err := conn.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	select {
	case <-tr.Done():
	default:
		t.Error("Close returned before the session's end")
	}
	if left := goneBy(server, t0.Add(stdinGrace+grace+time.Second)); len(left) > 0 {
		t.Fatalf("%v after Close the server is left", stdinGrace+grace+time.Second)
	}
	ended, err := tr.Wait()
	if err != nil {
		t.Fatal(err)
	}
	if ended.Reason != "stdin-closed" || ended.Signal == nil || *ended.Signal != "KILL" {
		t.Errorf("the ended record says %q, signal %s: want stdin-closed, KILL", ended.Reason, deref(ended.Signal))
	}
}

func deref(s *string) string {
	if s == nil {
		return "null"
	}
	return *s
}

func TestConnectWithAnEndedContextStartsNoSession(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	tr := &ssmcp.Transport{Options: launch.Options{Argv: []string{"sleep", "300"}, Binary: binary(t)}}
	conn, err := tr.Connect(ctx)
	var lerr *launch.Error
	if err == nil {
		_ = conn.Close()
		t.Fatal("Connect with an ended context returned a connection")
	}
	if !errors.As(err, &lerr) || !errors.Is(err, context.Canceled) {
		t.Errorf("Connect: %v (%T), want a *launch.Error of context.Canceled", err, err)
	}
	if tr.PID() != 0 || tr.Done() != nil {
		t.Errorf("after a failed Connect the PID is %d and Done %v, want 0 and nil", tr.PID(), tr.Done())
	}
	if _, err := tr.Wait(); err == nil {
		t.Error("Wait without a session returned no error")
	}
}

// standIn writes a shell script that acks as session-starter does and then
// runs body, with $status the descriptor of "--status-fd".
func standIn(t *testing.T, body string) string {
	t.Helper()
	script := `#!/bin/sh
status=
while [ $# -gt 0 ] && [ "$1" != -- ]; do
	[ "$1" = --status-fd ] && status=$2
	shift
done
printf '{"session_containment":1,"pid":%d,"mode":"group"}\n' $$
` + body
	path := filepath.Join(t.TempDir(), "stand-in")
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestCloseReportsMembersThatSurvived(t *testing.T) {
	// On its stdin's end it reports a survivor, as session-starter does
	// when SIGKILL did not end a member within the kill budget.
	bin := standIn(t, `cat >/dev/null
eval "printf '%s\n' '{\"event\":\"ended\",\"reason\":\"stdin-closed\",\"outcome\":\"survivors\",\"report\":\"1 survivor\"}' >&$status"
exit 125
`)
	tr := ssmcp.Command("unused")
	tr.Options.Binary = bin
	conn, err := tr.Connect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	err = conn.Close()
	if err == nil || !strings.Contains(err.Error(), "survived: 1 survivor") {
		t.Errorf("Close: %v, want the survivors reported", err)
	}
}

func TestCloseKillsASessionStarterThatDoesNotEndTheSession(t *testing.T) {
	// It ignores its stdin's end and SIGTERM, and writes no record.
	bin := standIn(t, `trap '' TERM
exec sleep 300
`)
	tr := ssmcp.Command("unused")
	tr.Options.Binary = bin
	tr.Options.StdinGrace, tr.Options.KillBudget = 100*time.Millisecond, 100*time.Millisecond
	conn, err := tr.Connect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	state, start, ok := stat(tr.PID())
	if !ok || state == 'Z' {
		t.Fatalf("the stand-in (%d) is not alive after Connect", tr.PID())
	}
	standIn := []proc{{"stand-in", tr.PID(), start}}
	t.Cleanup(func() { killOurs(standIn) })
	err = conn.Close()
	if err == nil || !strings.Contains(err.Error(), "session-starter was killed") {
		t.Errorf("Close: %v, want session-starter's kill reported", err)
	}
	// The connection closes the server's stdin once, and its Close
	// reports the same again.
	if again := conn.Close(); fmt.Sprint(again) != fmt.Sprint(err) {
		t.Errorf("a second Close: %v, want the first's error again: %v", again, err)
	}
	if left := living(standIn); len(left) > 0 {
		t.Errorf("the stand-in is alive after Close")
	}
	if _, err := tr.Wait(); !errors.Is(err, launch.ErrNoEnded) {
		t.Errorf("Wait: %v, want launch.ErrNoEnded", err)
	}
}

func TestCloseStopsASessionStarterThatDoesNotEndTheSessionByItself(t *testing.T) {
	// It ignores its stdin's end, writes no record, and dies of SIGTERM.
	bin := standIn(t, `exec sleep 300
`)
	tr := ssmcp.Command("unused")
	tr.Options.Binary = bin
	tr.Options.StdinGrace, tr.Options.KillBudget = 100*time.Millisecond, 100*time.Millisecond
	conn, err := tr.Connect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	_, start, _ := stat(tr.PID())
	standIn := []proc{{"stand-in", tr.PID(), start}}
	t.Cleanup(func() { killOurs(standIn) })
	err = conn.Close()
	if err == nil || !strings.Contains(err.Error(), "session-starter was stopped") {
		t.Errorf("Close: %v, want session-starter's stop reported", err)
	}
}

func TestAServerThatIgnoresItsStdinsEndGetsTheDefaultStdinGrace(t *testing.T) {
	tr := ssmcp.Command("sh", "-c", "exec sleep 300")
	tr.Options.Binary = binary(t)
	conn, err := tr.Connect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	_, start, _ := stat(tr.PID())
	server := []proc{{"server", tr.PID(), start}}
	t.Cleanup(func() { killOurs(server) })
	t0 := time.Now()
	if err := conn.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	if took := time.Since(t0); took < ssmcp.DefaultStdinGrace || took > ssmcp.DefaultStdinGrace+time.Second {
		t.Errorf("Close took %v, want the stdin grace (%v) and less than 1 s more", took, ssmcp.DefaultStdinGrace)
	}
	if ended, err := tr.Wait(); err != nil || ended.Reason != "stdin-closed" {
		t.Errorf("Wait: %q, %v: want stdin-closed", ended.Reason, err)
	}
}
