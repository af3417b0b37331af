package main

// The README's recipes, each run as printed: the blocks are read out of
// README.md's section "Recipes", so that the two cannot drift. Where a
// recipe names a place of the user's machine (/usr/local/bin, /srv), a
// mount namespace of the test's own puts the product there; where it
// names a program that needs the network (npx -y …), a stand-in of the
// same name is put first in the PATH the recipe gives.

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/session-starter/session-starter/internal/testproc"
)

func init() {
	testproc.Register("mcp-config-client", mcpConfigClient)
}

// recipeBlock returns the n-th (from 0) fenced code block of language
// lang in the README's subsection of "Recipes" whose heading starts with
// heading.
func recipeBlock(t *testing.T, heading, lang string, n int) string {
	t.Helper()
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, recipes, ok := strings.Cut(string(readme), "\n## Recipes\n")
	if !ok {
		t.Fatal(`README.md has no section "Recipes"`)
	}
	recipes, _, _ = strings.Cut(recipes, "\n## ")
	_, sub, ok := strings.Cut(recipes, "\n### "+heading)
	if !ok {
		t.Fatalf("README.md's recipes have no subsection %q", heading)
	}
	sub, _, _ = strings.Cut(sub, "\n### ")
	for i := 0; ; i++ {
		var block string
		_, block, ok = strings.Cut(sub, "\n```"+lang+"\n")
		if !ok {
			t.Fatalf("README.md's recipe %q has no %s block number %d", heading, lang, n)
		}
		block, sub, _ = strings.Cut(block, "\n```\n")
		if i == n {
			return block + "\n"
		}
	}
}

// mcpServer is one server of an MCP client's config, as Claude Desktop,
// Claude Code and Cursor read it.
type mcpServer struct {
	Type    string            `json:"type"`
	Command string            `json:"command"`
	Args    []string          `json:"args"`
	Env     map[string]string `json:"env"`
}

// configServer reads the one server of an MCP client config, under
// "mcpServers".
func configServer(t *testing.T, config string) mcpServer {
	t.Helper()
	var c struct {
		MCPServers map[string]mcpServer `json:"mcpServers"`
	}
	if err := json.Unmarshal([]byte(config), &c); err != nil {
		t.Fatalf("the README's config %q: %v", config, err)
	}
	servers := c.MCPServers
	if len(servers) != 1 {
		t.Fatalf("the README's config names %d servers, want 1", len(servers))
	}
	for _, s := range servers {
		if s.Type != "" && s.Type != "stdio" {
			t.Fatalf("server type %q, want stdio", s.Type)
		}
		return s
	}
	panic("not reached")
}

// clientEnvVars are the variables an MCP client passes a stdio server of
// its own environment (the TypeScript SDK's getDefaultEnvironment); the
// config's env is laid over them.
var clientEnvVars = []string{"HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER"}

// mcpConfigClient plays an MCP client: it starts the server that the
// JSON in args[0] describes, as the clients do (command and args as they
// stand, no shell; a few variables of its own with the config's env over
// them — and the test's mark), runs the handshake and a tool call that
// starts three processes, and prints "ready STARTER-PID COMM PID…". Then
// it waits for a line on stdin: "close" ends the server as the SDK's
// close does (stdin closed, 2 s, SIGTERM, 2 s, SIGKILL) and prints
// "closed". A test may SIGKILL it instead.
func mcpConfigClient(args []string) int {
	var s mcpServer
	if err := json.Unmarshal([]byte(args[0]), &s); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	env := []string{markVar + "=" + os.Getenv(markVar)}
	for _, k := range clientEnvVars {
		if v, ok := s.Env[k]; ok {
			env = append(env, k+"="+v)
		} else if v, ok := os.LookupEnv(k); ok {
			env = append(env, k+"="+v)
		}
	}
	for k, v := range s.Env {
		if !slices.Contains(clientEnvVars, k) {
			env = append(env, k+"="+v)
		}
	}
	cmd := exec.Command(s.Command, s.Args...)
	cmd.Env = env
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "start the server:", err)
		return 1
	}
	lines := bufio.NewReader(out)
	var pids []int
	for i, msg := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"recipe-client","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"spawn","arguments":{"count":3}}}`,
	} {
		fmt.Fprintln(in, msg)
		if i == 1 {
			continue // a notification has no reply
		}
		l, err := lines.ReadBytes('\n')
		var reply struct {
			ID     int `json:"id"`
			Result struct {
				Structured struct {
					PIDs []int `json:"pids"`
				} `json:"structuredContent"`
			} `json:"result"`
		}
		if err != nil || json.Unmarshal(l, &reply) != nil || reply.ID == 0 {
			fmt.Fprintf(os.Stderr, "reply %q, %v\n", l, err)
			return 1
		}
		pids = reply.Result.Structured.PIDs
	}
	comm, _ := os.ReadFile("/proc/" + strconv.Itoa(cmd.Process.Pid) + "/comm")
	fmt.Printf("ready %d %s", cmd.Process.Pid, strings.TrimSpace(string(comm)))
	for _, p := range pids {
		fmt.Printf(" %d", p)
	}
	fmt.Println()
	if l, _ := bufio.NewReader(os.Stdin).ReadString('\n'); l != "close\n" {
		return 1
	}
	in.Close()
	exited := make(chan struct{})
	go func() {
		_, _ = io.Copy(io.Discard, lines)
		_ = cmd.Wait()
		close(exited)
	}()
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGKILL} {
		select {
		case <-exited:
		case <-time.After(2 * time.Second):
			_ = cmd.Process.Signal(sig)
			continue
		}
		break
	}
	<-exited
	fmt.Println("closed")
	return 0
}

// npxStandIn is an npx that runs, offline, the test's MCP server in place
// of @modelcontextprotocol/server-filesystem: as npm exec does, as its
// child, waiting for it. Then it lingers, as a server does whose event
// loop outlives the end of its input: only the session's end (or a
// signal) stops it, so that the tests see --watch-stdin and
// --watch-parent at work, not the server's own exit.
func npxStandIn(t *testing.T, dir string) string {
	t.Helper()
	python := realPython(t)
	script := "#!/bin/sh\n" +
		`if [ "$1" != -y ] || [ "$2" != @modelcontextprotocol/server-filesystem ]; then echo "npx stand-in: $*" >&2; exit 2; fi` + "\n" +
		python + " " + testdata(t, "mcp_engine.py") + "\nexec sleep 600\n"
	p := filepath.Join(dir, "npx")
	if err := os.WriteFile(p, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// realPython is the python3 interpreter itself, not a shim (pyenv's) that
// needs a PATH of its own.
func realPython(t *testing.T) string {
	t.Helper()
	out, err := exec.Command(needTool(t, "python3"), "-c", "import sys; print(sys.executable)").Output()
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(out))
}

// inLocalBin returns an unshare argv that runs the rest in a mount
// namespace of its own where /usr/local/bin holds the product as
// session-starter and the npx stand-in, and nothing else.
func inLocalBin(t *testing.T) []string {
	t.Helper()
	unshare, err := exec.LookPath("unshare")
	if err != nil {
		t.Skip("no unshare")
	}
	npx := npxStandIn(t, t.TempDir())
	return []string{unshare, "--mount", "--propagation", "private", "sh", "-c",
		`mount -t tmpfs -o mode=755 none /usr/local/bin && ` + copyProduct("/usr/local/bin/session-starter") + ` && cp "$0" /usr/local/bin/npx && exec "$@"`,
		npx}
}

// productComm is the product's command name: session-starter, or the
// portable suite's product that its launcher executes.
func productComm() string { return filepath.Base(productPath(binary)) }

// copyProduct is the shell command that copies the product to dest, and
// in the portable suite the product next to it that the launcher
// executes (productPath).
func copyProduct(dest string) string {
	cp := "cp '" + binary + "' '" + dest + "'"
	if p := productPath(binary); p != binary {
		cp += " && cp '" + p + "' '" + productPath(dest) + "'"
	}
	return cp
}

// startClient starts the MCP client helper on the server s in
// /usr/local/bin's namespace, and reads its ready line: the server's PID
// and command name, and the three processes its tool call started.
func startClient(t *testing.T, mark string, s mcpServer) (*session, int, string, []int) {
	t.Helper()
	config, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	argv := append(inLocalBin(t), exe, string(config))
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), testproc.HelperEnv(t, "mcp-config-client"), markVar+"="+mark, "GORACE=atexit_sleep_ms=0")
	c := startCmd(t, mark, cmd)
	f := strings.Fields(c.line())
	if len(f) != 6 || f[0] != "ready" {
		t.Fatalf("client said %q, want ready, the server's PID and comm and 3 PIDs; stderr: %s", f, c.stderr)
	}
	pid, _ := strconv.Atoi(f[1])
	var spawned []int
	for _, s := range f[3:] {
		p, _ := strconv.Atoi(s)
		spawned = append(spawned, p)
	}
	return c, pid, f[2], spawned
}

// endClient ends the client as asked: "close" as the SDK closes, or
// "killed" by SIGKILL with nothing else signalled.
func endClient(t *testing.T, c *session, how string) {
	t.Helper()
	switch how {
	case "close":
		if _, err := c.in.Write([]byte("close\n")); err != nil {
			t.Fatal(err)
		}
		if got := c.line(); got != "closed" {
			t.Fatalf("client said %q, want closed", got)
		}
		wantExit(t, c.wait(), 0, c.stderr)
	case "killed":
		c.signal(syscall.SIGKILL)
		wantSignal(t, c.wait(), syscall.SIGKILL, c.stderr)
	}
}

// TestReadmeMCPConfigsLeaveNothingWhenTheClientEnds: the README's MCP
// config (Claude Desktop, Claude Code, Cursor), started as the clients
// start it, with the absolute path it gives: closed as the SDK closes, or
// with the client SIGKILLed, the server and the three processes of its
// tool call are all gone. (make test-lifetime runs it, and the manual's
// configs, under the official clients.)
func TestReadmeMCPConfigsLeaveNothingWhenTheClientEnds(t *testing.T) {
	s := configServer(t, recipeBlock(t, "MCP clients", "json", 0))
	if !filepath.IsAbs(s.Command) {
		t.Fatalf("command %q is not an absolute path", s.Command)
	}
	for _, how := range []string{"close", "killed"} {
		t.Run(how, func(t *testing.T) {
			mark := newMark(t)
			c, _, comm, spawned := startClient(t, mark, s)
			if comm != productComm() {
				t.Fatalf("the client's server is %q, want %s", comm, productComm())
			}
			// Python's Popen returns once the child's exec closed its
			// error pipe, which the kernel does before it sets the new
			// program's environment bounds: for a moment /proc/PID/environ
			// reads empty. Marked, eventually.
			testproc.Eventually(t, "the tool call's processes to show the mark", func() bool {
				return containsAll(marked(mark), spawned)
			})
			endClient(t, c, how)
			noSurvivors(t, mark)
		})
	}
}

func containsAll(have, want []int) bool {
	for _, w := range want {
		if !slices.Contains(have, w) {
			return false
		}
	}
	return true
}

// TestADirectLaunchOfTheREADMEsServerLeavesItsProcesses is the control
// of the config test: the same server with npx as the command, its
// client SIGKILLed, leaves the processes of its tool call behind.
func TestADirectLaunchOfTheREADMEsServerLeavesItsProcesses(t *testing.T) {
	s := configServer(t, recipeBlock(t, "MCP clients", "json", 0))
	i := slices.Index(s.Args, "--")
	s.Command, s.Args = "/usr/local/bin/"+s.Args[i+1], s.Args[i+2:]
	mark := newMark(t)
	c, _, _, spawned := startClient(t, mark, s)
	endClient(t, c, "killed")
	// A negative check: the leftovers must still be there after the
	// time in which a session would have ended them.
	time.Sleep(time.Second)
	left := killMarked(mark)
	if !containsAll(left, spawned) {
		t.Fatalf("a direct launch left %v, want at least the tool call's %v", left, spawned)
	}
}

// TestReadmeWrapperScriptExecsSessionStarter: the README's wrapper
// script, run by an MCP client: session-starter takes the script's
// process (the client is the parent it watches), and the SIGKILLed
// client leaves nothing.
func TestReadmeWrapperScriptExecsSessionStarter(t *testing.T) {
	script := filepath.Join(t.TempDir(), "my-mcp-server")
	if err := os.WriteFile(script, []byte(recipeBlock(t, "A wrapper script", "sh", 0)), 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := configServer(t, recipeBlock(t, "MCP clients", "json", 0))
	for _, how := range []string{"close", "killed"} {
		t.Run(how, func(t *testing.T) {
			mark := newMark(t)
			c, _, comm, _ := startClient(t, mark, mcpServer{Command: script, Args: []string{"/home/me/src"}, Env: cfg.Env})
			if comm != productComm() {
				t.Fatalf("the wrapper's process runs %q, want %s (exec)", comm, productComm())
			}
			endClient(t, c, how)
			noSurvivors(t, mark)
		})
	}
}

// ciRun is the README's CI step's run: line.
func ciRun(t *testing.T) string {
	t.Helper()
	for l := range strings.SplitSeq(recipeBlock(t, "A CI step", "yaml", 0), "\n") {
		if _, run, ok := strings.Cut(l, "run: "); ok {
			return run
		}
	}
	t.Fatal("the README's CI step has no run: line")
	return ""
}

// ciMakefile is the step's make integration-test: a server in the
// background, a daemon that left the group, and the long test.
const ciMakefile = "integration-test:\n\tsleep 600 & setsid sleep 600 & touch started; sleep 600\n"

// runCIStep runs run as a GitHub Actions runner runs a step (bash
// --noprofile --norc -eo pipefail on a script file), waits until its
// make has started everything, and cancels it as the runner does: SIGINT
// to the step's shell, then SIGTERM. It returns once the shell is gone.
func runCIStep(t *testing.T, mark, run string) {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "Makefile"), []byte(ciMakefile), 0o644); err != nil {
		t.Fatal(err)
	}
	step := filepath.Join(dir, "step.sh")
	if err := os.WriteFile(step, []byte(run+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("bash", "--noprofile", "--norc", "-eo", "pipefail", step)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), markVar+"="+mark, "PATH="+filepath.Dir(binary)+string(os.PathListSeparator)+os.Getenv("PATH"))
	sh := startCmd(t, mark, cmd)
	testproc.Eventually(t, "make integration-test must have started", func() bool {
		_, err := os.Stat(filepath.Join(dir, "started"))
		return err == nil
	})
	sh.signal(syscall.SIGINT)
	// The runner waits 7.5 s before its SIGTERM; the shell waits for its
	// command meanwhile, whatever the pause.
	time.Sleep(500 * time.Millisecond)
	sh.signal(syscall.SIGTERM)
	wantSignal(t, sh.wait(), syscall.SIGTERM, sh.stderr)
}

// TestReadmeCIStepLeavesNothingWhenTheRunCancelsIt: the README's CI step,
// cancelled as GitHub Actions cancels a step, leaves nothing of the step.
// Its setsid daemon needs the subreaper (macOS has none: the documented
// limit).
func TestReadmeCIStepLeavesNothingWhenTheRunCancelsIt(t *testing.T) {
	needsSubreaper(t)
	mark := newMark(t)
	runCIStep(t, mark, ciRun(t))
	noSurvivors(t, mark)
}

// TestACIStepWithoutWatchParentOutlivesItsCancellation is the control:
// the same step without --watch-parent runs on after the cancellation.
func TestACIStepWithoutWatchParentOutlivesItsCancellation(t *testing.T) {
	run := strings.Replace(ciRun(t), " --watch-parent", "", 1)
	if run == ciRun(t) {
		t.Fatal("the README's CI step has no --watch-parent")
	}
	mark := newMark(t)
	runCIStep(t, mark, run)
	// A negative check: the step's processes must still be there after
	// the time in which the session would have ended them.
	time.Sleep(time.Second)
	// Counted before they are killed: once killMarked has SIGKILLed
	// session-starter, its guard ends the rest, which killMarked then
	// finds gone and does not count.
	left := marked(mark)
	killMarked(mark)
	if len(left) < 4 {
		t.Fatalf("without --watch-parent the cancelled step left %v, want session-starter, make and its sleeps", left)
	}
}

// dockerfile is the README's Dockerfile: its COPY sources and
// destinations, WORKDIR, and the exec-form ENTRYPOINT and CMD.
type dockerfile struct {
	copies      [][2]string
	workdir     string
	entrypoint  []string
	commandLine []string
}

func readDockerfile(t *testing.T) dockerfile {
	t.Helper()
	var d dockerfile
	for l := range strings.SplitSeq(recipeBlock(t, "A container's ENTRYPOINT", "dockerfile", 0), "\n") {
		instr, rest, _ := strings.Cut(l, " ")
		var err error
		switch instr {
		case "COPY":
			f := strings.Fields(rest)
			d.copies = append(d.copies, [2]string{f[0], f[1]})
		case "WORKDIR":
			d.workdir = rest
		case "ENTRYPOINT":
			err = json.Unmarshal([]byte(rest), &d.entrypoint)
		case "CMD":
			err = json.Unmarshal([]byte(rest), &d.commandLine)
		}
		if err != nil {
			t.Fatalf("Dockerfile line %q: %v", l, err)
		}
	}
	if len(d.copies) != 2 || d.copies[0][0] != "session-starter" || d.workdir == "" || len(d.entrypoint) == 0 || len(d.commandLine) == 0 {
		t.Fatalf("the README's Dockerfile: %+v, want COPY session-starter, COPY app, WORKDIR, ENTRYPOINT and CMD", d)
	}
	return d
}

// serveScript is the app of the Dockerfile: a worker, a daemon that
// leaves the group, and a server that ends on SIGTERM, saying so. It
// forks everything before it says ready, and then only waits: a child
// forked between the stop signal and the trap (the next one of a loop,
// or one forked after "ready") never gets the signal and waits for the
// SIGKILL at the grace's end — a limit the manual states — and the test
// would time the app's race, not session-starter.
const serveScript = `#!/bin/sh
sleep 600 &
setsid sleep 600 &
trap 'echo "serve: got TERM"; exit 0' TERM
sleep 600 &
last=$!
echo ready
wait $last
`

// TestReadmeDockerEntrypointRunsAsPID1AndEndsOnDockerStop: ENTRYPOINT
// then CMD of the README's Dockerfile, as PID 1 of a new PID namespace
// with its COPY lines done by mounts: the SIGTERM of docker stop reaches
// the app, which ends within the grace; session-starter mirrors its
// status, and nothing is left.
func TestReadmeDockerEntrypointRunsAsPID1AndEndsOnDockerStop(t *testing.T) {
	unshare, err := exec.LookPath("unshare")
	if err != nil {
		t.Skip("no unshare")
	}
	d := readDockerfile(t)
	buildContext := t.TempDir()
	app := filepath.Join(buildContext, d.copies[1][0])
	if err := os.Mkdir(app, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(app, "serve"), []byte(serveScript), 0o755); err != nil {
		t.Fatal(err)
	}
	// COPY session-starter DEST: a tmpfs over DEST's directory holding
	// the product; COPY app DEST: the app's directory bound over DEST's
	// parent (an empty /srv here), so that DEST is the app.
	binDest, appDest := d.copies[0][1], d.copies[1][1]
	if filepath.Base(appDest) != d.copies[1][0] {
		t.Fatalf("COPY %s %s: want the destination named as the source", d.copies[1][0], appDest)
	}
	setup := `mount -t tmpfs -o mode=755 none "$(dirname "$DEST_BIN")" && ` + copyProduct(binDest) + ` && ` +
		`mount --bind "$0" "$(dirname "$DEST_APP")" && cd "$WORKDIR" && exec "$@"`
	argv := append([]string{"--pid", "--fork", "--mount-proc", "sh", "-c", setup, buildContext}, append(d.entrypoint, d.commandLine...)...)
	cmd := exec.Command(unshare, argv...)
	mark := newMark(t)
	cmd.Env = append(os.Environ(), markVar+"="+mark, "DEST_BIN="+binDest, "DEST_APP="+appDest, "WORKDIR="+d.workdir)
	s := startCmd(t, mark, cmd)
	if got := s.line(); got != "ready" {
		t.Fatalf("the app said %q, want ready; stderr %s", got, s.stderr)
	}
	pid1 := childOf(t, s.cmd.Process.Pid)
	status, err := os.ReadFile("/proc/" + strconv.Itoa(pid1) + "/status")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(status), "\nNSpid:\t"+strconv.Itoa(pid1)+"\t1\n") || !strings.Contains(string(status), "Name:\t"+productComm()+"\n") {
		t.Fatalf("unshare's child: %s; want session-starter as PID 1 of its namespace", status)
	}
	// All three sleeps must have exec'd: a TERM that reaches the shell's
	// forked child before its exec is caught by the trap it inherited
	// and lost with it, and that sleep would wait for the grace's
	// SIGKILL — the app's race, not session-starter's.
	testproc.Eventually(t, "the app's worker, daemon and server must run", func() bool {
		sleeps := 0
		for _, pid := range marked(mark) {
			if comm, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/comm"); err == nil && string(comm) == "sleep\n" {
				sleeps++
			}
		}
		return sleeps == 3
	})
	// docker stop: SIGTERM to PID 1, from outside its namespace.
	began := time.Now()
	if err := syscall.Kill(pid1, syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if got := s.line(); got != "serve: got TERM" {
		t.Fatalf("the app said %q, want its TERM trap; stderr %s", got, s.stderr)
	}
	wantExit(t, s.wait(), 0, s.stderr)
	grace, err := time.ParseDuration(d.entrypoint[slices.Index(d.entrypoint, "--grace")+1])
	if err != nil {
		t.Fatal(err)
	}
	if took := time.Since(began); took >= grace {
		t.Fatalf("docker stop took %v, want the app's own end within the grace %v", took, grace)
	}
	noSurvivors(t, mark)
}

// childOf returns the one child of pid, our unreaped child, once it has
// one.
func childOf(t *testing.T, pid int) int {
	t.Helper()
	var child int
	testproc.Eventually(t, "the process must have a child", func() bool {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/children", pid, pid))
		f := strings.Fields(string(b))
		if err != nil || len(f) != 1 {
			return false
		}
		child, _ = strconv.Atoi(f[0])
		return true
	})
	return child
}

// TestReadmeLaunchersSayOneLineWhenSessionStarterIsMissing: the Python
// and Node launchers of the README, where PATH has no session-starter,
// exit 1 with one line that says so (no traceback, no unhandled 'error').
func TestReadmeLaunchersSayOneLineWhenSessionStarterIsMissing(t *testing.T) {
	for _, tt := range []struct{ name, interp, lang, flag string }{
		{"python", "python3", "python", "-c"},
		{"node", "node", "js", "-e"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			interp := needTool(t, tt.interp)
			if tt.name == "python" {
				interp = realPython(t)
			}
			cmd := exec.Command(interp, tt.flag, readmeBlock(t, tt.lang))
			cmd.Env = append(os.Environ(), "PATH="+t.TempDir())
			var stderr strings.Builder
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			want := "session-starter not found in PATH: install it, or give its absolute path\n"
			if cmd.ProcessState.ExitCode() != 1 || stderr.String() != want || len(out) != 0 {
				t.Fatalf("the README's %s launcher without session-starter: %v, stdout %q, stderr %q; want exit 1 and %q", tt.name, err, out, stderr.String(), want)
			}
		})
	}
}
