package dockercli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// Label is the key of the label that names a container's session.
const Label = "session-starter.session"

// EndpointVars are the environment variables that tell an engine's CLI
// which engine to reach, and how: they are kept with the CLI.
var EndpointVars = []string{
	"DOCKER_HOST", "DOCKER_CONTEXT", "DOCKER_CONFIG", "DOCKER_TLS_VERIFY", "DOCKER_CERT_PATH",
	"CONTAINER_HOST", "CONTAINER_CONNECTION", "CONTAINER_SSHKEY", "CONTAINERS_CONF", "CONTAINERS_STORAGE_CONF",
	"XDG_RUNTIME_DIR", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "HOME", "PATH",
}

// CLI is how to reach the engine that runs a session's containers.
type CLI struct {
	Path string   `json:"path"` // the engine's CLI binary, as the Engine ran it
	Args []string `json:"args"` // its global options, before the subcommand
	Env  []string `json:"env"`  // the EndpointVars the Engine had
}

// ErrRefused is wrapped by Prepare's error for a command line it does not
// take.
var ErrRefused = errors.New("not a docker or podman run in the foreground")

// Prepare returns argv, a `docker run` or `podman run` command line, with
// the label Label=id added right after run, and the CLI that reaches the
// same engine. path is argv[0] as found in PATH; env is the Engine's
// environment.
func Prepare(argv []string, path string, env []string, id string) ([]string, CLI, error) {
	if len(argv) == 0 {
		return nil, CLI{}, fmt.Errorf("%w: no command line", ErrRefused)
	}
	name := filepath.Base(argv[0])
	globals, ok := globalValues[name]
	if !ok {
		return nil, CLI{}, fmt.Errorf("%w: %s is neither docker nor podman (a wrapper script or a shell in front is not read)", ErrRefused, argv[0])
	}
	// sub is where the subcommand begins, run where run's options do.
	sub, run := -1, -1
	for i := 1; i < len(argv) && run < 0; i++ {
		a := argv[i]
		switch {
		case a == "run":
			sub, run = i, i+1
		case a == "container" && i+1 < len(argv) && argv[i+1] == "run":
			sub, run = i, i+2
		case strings.HasPrefix(a, "-") && a != "-" && a != "--":
			flag, _, hasValue := strings.Cut(a, "=")
			switch {
			case hasValue || slices.Contains(globalBools[name], flag):
			case slices.Contains(globals, flag):
				i++
			default:
				return nil, CLI{}, fmt.Errorf("%w: %s's global option %s is not known here: write it as %s=VALUE if it takes a value", ErrRefused, name, flag, flag)
			}
		default:
			return nil, CLI{}, fmt.Errorf("%w: %s %s is not run or container run", ErrRefused, name, a)
		}
	}
	if run < 0 {
		return nil, CLI{}, fmt.Errorf("%w: %s with no run", ErrRefused, name)
	}
	if err := checkRun(argv[run:]); err != nil {
		return nil, CLI{}, err
	}
	out := slices.Concat(argv[:run], []string{"--label", Label + "=" + id}, argv[run:])
	cli := CLI{Path: path, Args: slices.Clone(argv[1:sub])}
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		if slices.Contains(EndpointVars, k) {
			cli.Env = append(cli.Env, kv)
		}
	}
	return out, cli, nil
}

// checkRun reads run's options, up to the image, and refuses -d and a
// label of the key Label.
func checkRun(args []string) error {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" || !strings.HasPrefix(a, "-") || a == "-" {
			return nil // the image
		}
		if !strings.HasPrefix(a, "--") {
			// A cluster of short options: bools, then perhaps one that
			// takes the rest, or the next argument, as its value.
			for j := 1; j < len(a); j++ {
				c := a[j]
				if c == 'd' {
					return fmt.Errorf("%w: -d: a detached container is not the Engine's to wait for", ErrRefused)
				}
				if strings.IndexByte(runBoolShorts, c) >= 0 {
					continue
				}
				if c == 'l' && labelOf(a[j+1:], args, i) {
					return errLabel
				}
				if j == len(a)-1 {
					i++
				}
				break
			}
			continue
		}
		flag, value, hasValue := strings.Cut(a, "=")
		switch {
		case flag == "--detach" && (!hasValue || value == "true"):
			return fmt.Errorf("%w: --detach: a detached container is not the Engine's to wait for", ErrRefused)
		case flag == "--label":
			if labelOf(value, args, i) {
				return errLabel
			}
			if !hasValue {
				i++
			}
		case hasValue || slices.Contains(runBools, flag):
		default:
			i++
		}
	}
	return nil
}

var errLabel = fmt.Errorf("%w: a label %s given by hand: it is the session's to set", ErrRefused, Label)

// labelOf reports whether a label option's value — inline, or else the
// argument after args[i] — sets the key Label.
func labelOf(inline string, args []string, i int) bool {
	v := inline
	if v == "" && i+1 < len(args) {
		v = args[i+1]
	}
	k, _, _ := strings.Cut(v, "=")
	return k == Label
}

// The global options that take a value, by CLI: the others are bools.
var globalValues = map[string][]string{
	"docker": {"--config", "-c", "--context", "-H", "--host", "-l", "--log-level", "--tlscacert", "--tlscert", "--tlskey"},
	"podman": {"--cgroup-manager", "--conmon", "-c", "--connection", "--db-backend", "--events-backend", "--hooks-dir",
		"--identity", "--imagestore", "--log-level", "--module", "--network-cmd-path", "--network-config-dir", "--out",
		"--root", "--runroot", "--runtime", "--runtime-flag", "--ssh", "--storage-driver", "--storage-opt", "--tmpdir",
		"--url", "-H", "--host", "--volumepath"},
}

var globalBools = map[string][]string{
	"docker": {"-D", "--debug", "--tls", "--tlsverify"},
	"podman": {"-r", "--remote", "--noout", "--syslog", "--transient-store", "--debug"},
}

// run's options that take no value (docker's and podman's); every other
// option takes one.
var runBools = []string{
	"--detach", "--interactive", "--tty", "--rm", "--init", "--privileged", "--publish-all", "--read-only",
	"--sig-proxy", "--oom-kill-disable", "--no-healthcheck", "--disable-content-trust", "--quiet", "--help",
	"--use-api-socket", "--replace", "--rmi", "--env-host", "--http-proxy", "--no-hosts", "--read-only-tmpfs",
	"--passwd", "--tls-verify", "--rootfs", "--unsetenv-all",
}

const runBoolShorts = "itPq"

// Ended is what End did.
type Ended struct {
	Stopped []string // the ids of the containers stopped
	Removed []string // the ids of those removed (made with --rm)
}

// End stops the containers of session id, giving each the grace
// (rounded up to whole seconds, the engines' unit) before the engine's
// SIGKILL, then removes those made with --rm. The context bounds every
// command it runs.
func (c CLI) End(ctx context.Context, id string, grace time.Duration) (Ended, error) {
	var e Ended
	_, running, remove, err := c.list(ctx, id)
	if err != nil {
		return e, err
	}
	if len(running) > 0 {
		secs := int(math.Ceil(grace.Seconds()))
		if _, err := c.run(ctx, append([]string{"stop", "--time", fmt.Sprint(secs)}, running...)...); err != nil {
			return e, err
		}
		e.Stopped = running
	}
	if len(remove) > 0 {
		// The engine may be removing them already (--rm): an rm that
		// fails is checked against what is left.
		if _, err := c.run(ctx, append([]string{"rm", "--force"}, remove...)...); err != nil {
			left, lerr := c.ps(ctx, id)
			removing := func(cid string) bool { return slices.Contains(remove, cid) }
			if lerr != nil || slices.ContainsFunc(left, removing) {
				return e, err
			}
		}
		e.Removed = remove
	}
	return e, nil
}

// List returns the full ids of the containers of session id, running or
// not, each with its label read back.
func (c CLI) List(ctx context.Context, id string) ([]string, error) {
	all, _, _, err := c.list(ctx, id)
	return all, err
}

// list returns the containers of session id, each with its label read
// back: all of them, those running, and those made with --rm.
func (c CLI) list(ctx context.Context, id string) (all, running, remove []string, err error) {
	ids, err := c.ps(ctx, id)
	if err != nil || len(ids) == 0 {
		return nil, nil, nil, err
	}
	// Read each one's label back: a filter an engine ignores lists all.
	out, err := c.run(ctx, append([]string{"inspect", "--format", `{{.Id}} {{index .Config.Labels "` + Label + `"}} {{.HostConfig.AutoRemove}} {{.State.Running}}`}, ids...)...)
	if err != nil {
		return nil, nil, nil, err
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		if len(f) != 4 || f[1] != id {
			continue
		}
		all = append(all, f[0])
		if f[3] == "true" {
			running = append(running, f[0])
		}
		if f[2] == "true" {
			remove = append(remove, f[0])
		}
	}
	return all, running, remove, nil
}

// ps lists the full ids of the containers the engine finds by the label
// of session id, running or not.
func (c CLI) ps(ctx context.Context, id string) ([]string, error) {
	out, err := c.run(ctx, "ps", "--all", "--quiet", "--no-trunc", "--filter", "label="+Label+"="+id)
	return strings.Fields(string(out)), err
}

// run runs the engine's CLI with its global options and args.
func (c CLI) run(ctx context.Context, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, c.Path, append(slices.Clone(c.Args), args...)...)
	cmd.Env = c.Env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w: %s", filepath.Base(c.Path), args[0], err, strings.TrimSpace(stderr.String()))
	}
	return out, nil
}
