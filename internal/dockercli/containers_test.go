package dockercli

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

const id = "0123456789abcdef0123456789abcdef"

func TestPrepareLabelsTheContainerRightAfterRun(t *testing.T) {
	label := []string{"--label", Label + "=" + id}
	for _, c := range []struct {
		argv, want, globals []string
	}{
		{[]string{"docker", "run", "-i", "--rm", "img"}, slices.Concat([]string{"docker", "run"}, label, []string{"-i", "--rm", "img"}), nil},
		{[]string{"/usr/bin/podman", "container", "run", "-it", "img", "sh"}, slices.Concat([]string{"/usr/bin/podman", "container", "run"}, label, []string{"-it", "img", "sh"}), nil},
		{[]string{"docker", "--context", "container", "run", "img"}, slices.Concat([]string{"docker", "--context", "container", "run"}, label, []string{"img"}), []string{"--context", "container"}},
		{[]string{"docker", "--context", "ci", "-H", "unix:///x.sock", "--debug", "run", "img"}, slices.Concat([]string{"docker", "--context", "ci", "-H", "unix:///x.sock", "--debug", "run"}, label, []string{"img"}), []string{"--context", "ci", "-H", "unix:///x.sock", "--debug"}},
		{[]string{"podman", "--remote", "--connection=prod", "--root", "/r", "run", "-e", "A=-d", "img", "ls", "-d"}, slices.Concat([]string{"podman", "--remote", "--connection=prod", "--root", "/r", "run"}, label, []string{"-e", "A=-d", "img", "ls", "-d"}), []string{"--remote", "--connection=prod", "--root", "/r"}},
		{[]string{"docker", "run", "--detach=false", "-l", "app=x", "--label=tier=y", "img"}, slices.Concat([]string{"docker", "run"}, label, []string{"--detach=false", "-l", "app=x", "--label=tier=y", "img"}), nil},
	} {
		env := []string{"DOCKER_HOST=unix:///d.sock", "SECRET=1", "HOME=/h"}
		got, cli, err := Prepare(c.argv, "/bin/"+c.argv[0], env, id)
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("Prepare(%q) = %q, %v; want %q", c.argv, got, err, c.want)
			continue
		}
		if !slices.Equal(cli.Args, c.globals) || !slices.Equal(cli.Env, []string{"DOCKER_HOST=unix:///d.sock", "HOME=/h"}) {
			t.Errorf("Prepare(%q)'s CLI = %+v, want the global options %q and the endpoint environment alone", c.argv, cli, c.globals)
		}
	}
}

func TestPrepareRefusesWhatItCannotOwn(t *testing.T) {
	for _, c := range []struct {
		argv []string
		why  string
	}{
		{[]string{"bash", "-lc", "docker run img"}, "neither docker nor podman"},
		{[]string{"docker", "exec", "c", "sh"}, "not run"},
		{[]string{"docker", "run", "-d", "img"}, "-d"},
		{[]string{"docker", "run", "-itd", "img"}, "-d"},
		{[]string{"podman", "run", "--detach", "img"}, "--detach"},
		{[]string{"docker", "--new-flag", "x", "run", "img"}, "--new-flag=VALUE"},
		{[]string{"docker", "run", "--label", Label + "=other", "img"}, "given by hand"},
		{[]string{"docker", "run", "-l" + Label + "=other", "img"}, "given by hand"},
		{[]string{"docker"}, "no run"},
	} {
		_, _, err := Prepare(c.argv, c.argv[0], nil, id)
		if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), c.why) {
			t.Errorf("Prepare(%q) = %v, want a refusal saying %q", c.argv, err, c.why)
		}
	}
}
