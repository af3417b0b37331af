package containers

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/session-starter/session-starter/internal/testproc"
)

// readmeDockerfile returns the Dockerfile of the README's recipe "A
// container's ENTRYPOINT", as printed.
func readmeDockerfile(t *testing.T) string {
	t.Helper()
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, sub, ok := strings.Cut(string(readme), "\n### A container's ENTRYPOINT\n")
	if !ok {
		t.Fatal(`README.md has no recipe "A container's ENTRYPOINT"`)
	}
	sub, _, _ = strings.Cut(sub, "\n### ")
	_, block, ok := strings.Cut(sub, "\n```dockerfile\n")
	if !ok {
		t.Fatal(`README.md's recipe "A container's ENTRYPOINT" has no dockerfile block`)
	}
	block, _, _ = strings.Cut(block, "\n```\n")
	return block + "\n"
}

// manualBlock returns the indented block of the manual
// (cmd/session-starter/doc.go) whose first line is first, as printed.
func manualBlock(t *testing.T, first string) string {
	t.Helper()
	doc, err := os.ReadFile("../../cmd/session-starter/doc.go")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(doc), "\n//\t"+first+"\n")
	if !ok {
		t.Fatalf("the manual has no indented block that starts %q", first)
	}
	block := first + "\n"
	for l := range strings.Lines(rest) {
		line, ok := strings.CutPrefix(l, "//\t")
		if !ok {
			break
		}
		block += line
	}
	return block
}

// entrypointOf returns the exec-form ENTRYPOINT of a Dockerfile.
func entrypointOf(t *testing.T, dockerfile string) []string {
	t.Helper()
	for l := range strings.Lines(dockerfile) {
		if rest, ok := strings.CutPrefix(l, "ENTRYPOINT "); ok {
			var argv []string
			if err := json.Unmarshal([]byte(rest), &argv); err != nil {
				t.Fatalf("ENTRYPOINT %s: %v", rest, err)
			}
			return argv
		}
	}
	t.Fatalf("no ENTRYPOINT in\n%s", dockerfile)
	return nil
}

// graceOf returns the --grace of argv.
func graceOf(t *testing.T, argv []string) time.Duration {
	t.Helper()
	i := slices.Index(argv, "--grace")
	if i < 0 || i+1 == len(argv) {
		t.Fatalf("%q has no --grace", argv)
	}
	d, err := time.ParseDuration(argv[i+1])
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// build builds dockerfile with podman, its first FROM replaced by the
// engine's image (podman build --from: no registry), in a context of
// files (name → contents, made executable) and bin/session-starter as
// session-starter. The image is labelled as t's, for Cleanup.
func (e *Engine) build(t *testing.T, what, dockerfile string, files map[string]string) string {
	t.Helper()
	ctx := t.TempDir()
	bin, err := os.ReadFile(filepath.Join(e.dir, "..", "..", "bin", "session-starter"))
	if err != nil {
		t.Fatal(err)
	}
	files["session-starter"] = string(bin)
	files["Dockerfile"] = dockerfile
	for name, content := range files {
		p := filepath.Join(ctx, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	image := "localhost/" + e.Name(t, what)
	e.Podman(t, append(append([]string{"build", "-q", "--from", e.Image, "-t", image}, e.Labels(t)...), ctx)...)
	return image
}

// serve is the app of the README's Dockerfile and of the Pod manifest: it
// says ready, and on SIGTERM says so and exits 3. It forks nothing after
// ready, so that a census in its container sees no zombie in passing.
const serve = `#!/bin/sh
trap 'echo "serve: got TERM"; exit 3' TERM
sleep 100000 &
echo ready
wait
`

// awaitLog waits until the container's log has the line.
func awaitLog(t *testing.T, logs func() string, line string) {
	t.Helper()
	testproc.Eventually(t, "the log must say "+line, func() bool {
		return slices.Contains(strings.Split(logs(), "\n"), line)
	})
}

// TestReadmeDockerfileEndsWithinTheGraceOnDockerStop: the README's
// Dockerfile, built by podman, run and stopped by the docker client
// through podman's Docker API: docker stop's SIGTERM reaches the app,
// which ends within the grace, and the container's status is the app's.
func TestReadmeDockerfileEndsWithinTheGraceOnDockerStop(t *testing.T) {
	e := engineFor(t)
	dockerfile := readmeDockerfile(t)
	grace := graceOf(t, entrypointOf(t, dockerfile))
	image := e.build(t, "readme", dockerfile, map[string]string{"app/serve": serve})
	env := append(e.Env(), "DOCKER_HOST="+e.DockerHost(t), "DOCKER_CONFIG="+t.TempDir())
	docker := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(e.Docker, args...)
		cmd.Env = env
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("docker %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return strings.TrimSpace(string(out))
	}
	name := e.Name(t, "readme")
	docker(append(append([]string{"run", "-d", "--name", name}, e.Labels(t)...), image)...)
	awaitLog(t, func() string { return docker("logs", name) }, "ready")
	// Docker's daemon gives a container 10 s to stop; podman 4.3's Docker
	// API gives one it created 0 s (SIGKILL at once): -t says 10 s.
	began := time.Now()
	docker("stop", "-t", "10", name)
	took := time.Since(began)
	t.Logf("docker stop -t 10 with --grace %v took %v", grace, took.Round(time.Millisecond))
	if took >= grace {
		t.Errorf("docker stop took %v, want the app's own end within the grace %v", took, grace)
	}
	if logs := docker("logs", name); !strings.Contains(logs, "serve: got TERM") {
		t.Errorf("the app's log has no TERM:\n%s", logs)
	}
	if code := docker("inspect", "--format", "{{.State.ExitCode}}", name); code != "3" {
		t.Errorf("the container exited %s, want the app's 3", code)
	}
}

// podManifest returns the manual's Pod manifest with the test's image,
// a name of the test's run, and the test's labels.
func (e *Engine) podManifest(t *testing.T, image string) (manifest, pod string) {
	t.Helper()
	printed := manualBlock(t, "apiVersion: v1")
	pod = e.Name(t, "pod")
	labels := e.Labels(t)
	for l := range strings.Lines(printed) {
		switch {
		case l == "metadata:\n":
			l += "  labels:\n"
			for i := 1; i < len(labels); i += 2 {
				k, v, _ := strings.Cut(labels[i], "=")
				l += "    " + k + ": " + strconvQuote(v) + "\n"
			}
		case strings.HasPrefix(l, "  name: "):
			l = "  name: " + pod + "\n"
		case strings.HasPrefix(l, "    image: "):
			l = "    image: " + image + "\n"
		}
		manifest += l
	}
	if !strings.Contains(manifest, pod) || !strings.Contains(manifest, image) {
		t.Fatalf("the manual's manifest has no metadata name or no image:\n%s", printed)
	}
	return manifest, pod
}

// strconvQuote quotes a YAML string value as JSON does, which YAML reads.
func strconvQuote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// TestManualsPodManifestRunsSessionStarterAsPID1WithPodmanKubePlay: the
// manual's Pod manifest, with the README's image, under podman kube
// play: session-starter is PID 1, reaps the orphans of execs, and a
// pod stop ends the app within the grace with the app's status.
// podman ignores terminationGracePeriodSeconds (the -t of pod stop
// stands in for it), and kubelet's timing is not reproduced.
func TestManualsPodManifestRunsSessionStarterAsPID1WithPodmanKubePlay(t *testing.T) {
	e := engineFor(t)
	image := e.build(t, "kube", readmeDockerfile(t), map[string]string{"app/serve": serve})
	manifest, pod := e.podManifest(t, image)
	file := filepath.Join(t.TempDir(), "pod.yaml")
	if err := os.WriteFile(file, []byte(manifest), 0o644); err != nil {
		t.Fatal(err)
	}
	e.Podman(t, "kube", "play", file)
	t.Cleanup(func() {
		if out, err := e.Command("kube", "down", file).CombinedOutput(); err != nil {
			t.Errorf("podman kube down: %v\n%s", err, out)
		}
	})
	c := pod + "-engine"
	awaitLog(t, func() string { return e.Podman(t, "logs", c) }, "ready")
	cmdline := e.Podman(t, "exec", c, "sh", "-c", `tr '\0' ' ' </proc/1/cmdline`)
	if !strings.HasPrefix(cmdline, "/usr/local/bin/session-starter --grace ") {
		t.Errorf("PID 1 of the pod's container is %q, want session-starter", cmdline)
	}
	if _, after := e.orphanAndCount(t, c, 5, 40); after.zombies != 0 {
		t.Errorf("after 200 exec-orphaned processes: %+v, want no zombie", after)
	}
	grace := graceOf(t, strings.Fields(strings.NewReplacer(`"`, "", ",", "", "[", "", "]", "").Replace(cmdline)))
	began := time.Now()
	e.Podman(t, "pod", "stop", "-t", "30", pod)
	took := time.Since(began)
	t.Logf("podman pod stop -t 30 with --grace %v took %v", grace, took.Round(time.Millisecond))
	if took >= grace {
		t.Errorf("pod stop took %v, want the app's own end within the grace %v", took, grace)
	}
	if logs := e.Podman(t, "logs", c); !strings.Contains(logs, "serve: got TERM") {
		t.Errorf("the app's log has no TERM:\n%s", logs)
	}
	if code := e.Podman(t, "inspect", c, "--format", "{{.State.ExitCode}}"); code != "3" {
		t.Errorf("the container exited %s, want the app's 3", code)
	}
}

// mcpServer stands in for the server of the manual's MCP Dockerfile: a
// JSON-RPC server over stdio that answers initialize and tools/list, and
// exits when stdin ends.
const mcpServer = `#!/bin/sh
while read -r line; do
	id=$(echo "$line" | sed -n 's/.*"id": *\([0-9][0-9]*\).*/\1/p')
	case $line in
	*'"method":"initialize"'*)
		echo '{"jsonrpc":"2.0","id":'"$id"',"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"sh-server","version":"1"}}}' ;;
	*'"method":"tools/list"'*)
		echo '{"jsonrpc":"2.0","id":'"$id"',"result":{"tools":[]}}' ;;
	esac
done
`

// TestManualsMCPDockerfileServesOverRunAndIsRemovedWhenStdinCloses: the
// manual's MCP server image, run as its client would (podman run -i --rm,
// and docker run -i --rm through podman's Docker API): it answers
// initialize and tools/list over stdin and stdout, and once the client
// closes stdin the server exits, session-starter mirrors its status, and
// --rm removes the container.
func TestManualsMCPDockerfileServesOverRunAndIsRemovedWhenStdinCloses(t *testing.T) {
	e := engineFor(t)
	dockerfile := manualBlock(t, "FROM debian:stable-slim")
	image := e.build(t, "mcp", dockerfile, map[string]string{"server": mcpServer})
	t.Run("podman", func(t *testing.T) {
		e.Cleanup(t)
		name := e.Name(t, "mcp")
		e.mcpSession(t, e.Command(append(append([]string{"run", "-i", "--rm", "--name", name}, e.Labels(t)...), image)...), name, true)
	})
	t.Run("docker", func(t *testing.T) {
		e.Cleanup(t)
		name := e.Name(t, "mcp")
		cmd := exec.Command(e.Docker, append(append([]string{"run", "-i", "--rm", "--name", name}, e.Labels(t)...), image)...)
		cmd.Env = append(e.Env(), "DOCKER_HOST="+e.DockerHost(t), "DOCKER_CONFIG="+t.TempDir())
		// podman 4.3's Docker API reports 0 for every docker run --rm:
		// it removes the container before the client reads the status.
		e.mcpSession(t, cmd, name, false)
	})
}

// mcpSession runs the client's command of the MCP image (named name),
// speaks to the server, closes stdin, and checks that the command exits
// (0 if wantStatus: the server's status) and the container is gone.
func (e *Engine) mcpSession(t *testing.T, cmd *exec.Cmd, name string, wantStatus bool) {
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	// conmon may hold podman's stderr after a kill of podman.
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	var waitErr error
	go func() { waitErr = cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-exited
	})
	for _, req := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
	} {
		if _, err := stdin.Write([]byte(req + "\n")); err != nil {
			t.Fatal(err)
		}
	}
	lines := bufio.NewScanner(stdout)
	var answers []map[string]any
	for len(answers) < 2 && lines.Scan() {
		var m map[string]any
		if err := json.Unmarshal(lines.Bytes(), &m); err != nil {
			t.Fatalf("the server wrote %q: %v", lines.Text(), err)
		}
		answers = append(answers, m)
	}
	if len(answers) < 2 || answers[0]["id"] != 1.0 || answers[0]["result"] == nil || answers[1]["id"] != 2.0 || answers[1]["result"] == nil {
		t.Fatalf("the server answered %v, want results for initialize (1) and tools/list (2); stderr:\n%s", answers, stderr.String())
	}
	began := time.Now()
	stdin.Close()
	select {
	case <-exited:
		if waitErr != nil && wantStatus {
			t.Fatalf("%s ended %v after stdin closed, want the server's 0; stderr:\n%s", cmd.Args, waitErr, stderr.String())
		}
	case <-time.After(testproc.TooLong):
		t.Fatalf("%s still runs %v after stdin closed", cmd.Args, testproc.TooLong)
	}
	t.Logf("the container ended %v after the client closed stdin", time.Since(began).Round(time.Millisecond))
	if left := e.Podman(t, "ps", "-a", "-q", "--filter", "name=^"+name+"$"); left != "" {
		t.Errorf("--rm left the container %s", left)
	}
}
