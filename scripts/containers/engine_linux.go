package containers

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"hash/fnv"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
)

// Label is the label on every container, pod and image a test makes:
// its value is the test's name. Cleanup acts only on what carries it.
const Label = "session-starter-test"

// runLabel tells this process's containers from those of another run of
// the same test on the same engine.
const runLabel = Label + ".run"

// Engine is podman set up by setup.sh: its configuration and the image
// with busybox and session-starter at /usr/local/bin/session-starter.
type Engine struct {
	Conf  string // CONTAINERS_CONF
	Image string // localhost/session-starter-test:<tag>
	// Docker is the docker client: PATH's, else the client of Debian's
	// docker.io, unpacked by setup.sh.
	Docker string
	dir    string // this package's directory, where setup.sh is
	runID  string // this process's run label
}

var (
	setupOnce sync.Once
	engine    *Engine
	setupErr  string
)

// Setup runs setup.sh once per test binary and returns the engine. A test
// that cannot have it fails under CI=true, and skips elsewhere, saying
// why: setup.sh needs root, apt and Debian's packages.
func Setup(t testing.TB) *Engine {
	t.Helper()
	setupOnce.Do(func() { engine, setupErr = setup() })
	if engine == nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI=true, and the container engine cannot be set up: %s", setupErr)
		}
		t.Skipf("no container engine: %s", setupErr)
	}
	return engine
}

func setup() (*Engine, string) {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		return nil, "cannot find scripts/containers"
	}
	if os.Geteuid() != 0 {
		return nil, "setup.sh needs root (it installs podman and runs rootful containers)"
	}
	dir := filepath.Dir(file)
	cmd := exec.Command("bash", filepath.Join(dir, "setup.sh"))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, "setup.sh: " + err.Error() + "\n" + stderr.String()
	}
	vars := assignments(out)
	e := &Engine{Conf: vars["CONTAINERS_CONF"], Image: vars["IMAGE"], Docker: vars["DOCKER"], dir: dir}
	if e.Conf == "" || e.Image == "" || e.Docker == "" {
		return nil, "setup.sh printed no CONTAINERS_CONF, IMAGE or DOCKER: " + string(out)
	}
	b := make([]byte, 6)
	rand.Read(b)
	e.runID = hex.EncodeToString(b)
	return e, ""
}

// assignments parses setup.sh's KEY=value lines.
func assignments(out []byte) map[string]string {
	vars := map[string]string{}
	s := bufio.NewScanner(bytes.NewReader(out))
	for s.Scan() {
		if k, v, ok := strings.Cut(s.Text(), "="); ok {
			vars[k] = v
		}
	}
	return vars
}

// Env is the environment podman and the docker client run with here.
func (e *Engine) Env() []string {
	return append(os.Environ(), "CONTAINERS_CONF="+e.Conf)
}

// Labels returns the podman options that label a container, a pod or an
// image as t's, for Cleanup to find.
func (e *Engine) Labels(t testing.TB) []string {
	return []string{"--label", Label + "=" + t.Name(), "--label", runLabel + "=" + e.runID}
}

// Command returns podman with args, in the engine's environment.
func (e *Engine) Command(args ...string) *exec.Cmd {
	cmd := exec.Command("podman", args...)
	cmd.Env = e.Env()
	return cmd
}

// Podman runs podman with args and returns its standard output, trimmed;
// it fails t when podman fails.
func (e *Engine) Podman(t testing.TB, args ...string) string {
	t.Helper()
	cmd := e.Command(args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("podman %s: %v\n%s%s", strings.Join(args, " "), err, out, stderr.Bytes())
	}
	return strings.TrimSpace(string(out))
}

// Name returns a container or pod name unique to this run of t: short
// enough for a pod's host name (64 bytes).
func (e *Engine) Name(t testing.TB, what string) string {
	h := fnv.New32a()
	h.Write([]byte(t.Name()))
	return fmt.Sprintf("sst-%08x-%s-%s", h.Sum32(), what, e.runID)
}

// Cleanup removes, when t ends (failed or not), every pod, container and
// image labelled as t's by this run: nothing without the labels.
func (e *Engine) Cleanup(t testing.TB) {
	t.Cleanup(func() {
		// podman 4.3 ANDs the label filters of pods and containers, but
		// ORs those of images: an image's test label is read back.
		filters := []string{"--filter", "label=" + Label + "=" + t.Name(), "--filter", "label=" + runLabel + "=" + e.runID}
		e.remove(t, e.list(t, append([]string{"pod", "ps", "-q"}, filters...)), "pod", "rm", "-f", "-t", "0")
		e.remove(t, e.list(t, append([]string{"ps", "-a", "-q"}, filters...)), "rm", "-f", "-t", "0")
		var images []string
		for _, id := range e.list(t, []string{"images", "-q", "--filter", "label=" + runLabel + "=" + e.runID}) {
			out, err := e.Command("image", "inspect", "--format", "{{index .Labels \""+Label+"\"}}", id).Output()
			if err == nil && strings.TrimSpace(string(out)) == t.Name() && !slices.Contains(images, id) {
				images = append(images, id)
			}
		}
		e.remove(t, images, "rmi", "-f")
	})
}

// list returns the IDs podman lists with args.
func (e *Engine) list(t testing.TB, args []string) []string {
	out, err := e.Command(args...).Output()
	if err != nil {
		t.Errorf("podman %s: %v", strings.Join(args, " "), err)
	}
	return strings.Fields(string(out))
}

// remove runs podman rm (args) on ids, if any.
func (e *Engine) remove(t testing.TB, ids []string, rm ...string) {
	if len(ids) == 0 {
		return
	}
	if out, err := e.Command(append(rm, ids...)...).CombinedOutput(); err != nil {
		t.Errorf("podman %s %v: %v\n%s", strings.Join(rm, " "), ids, err, out)
	}
}

// DockerHost starts podman's Docker-compatible API service for t and
// returns its DOCKER_HOST (unix://…), for e.Docker; the service ends when
// t does.
func (e *Engine) DockerHost(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	script := filepath.Join(e.dir, "setup.sh")
	cmd := exec.Command("bash", script, "docker-service", "start", dir)
	cmd.Env = e.Env()
	out, err := cmd.Output()
	t.Cleanup(func() {
		cmd := exec.Command("bash", script, "docker-service", "stop", dir)
		cmd.Env = e.Env()
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("setup.sh docker-service stop: %v\n%s", err, out)
		}
	})
	if err != nil {
		t.Fatalf("setup.sh docker-service start: %v", err)
	}
	host := assignments(out)["DOCKER_HOST"]
	if host == "" {
		t.Fatalf("setup.sh docker-service start printed no DOCKER_HOST: %s", out)
	}
	return host
}
