//go:build darwin || freebsd || linux

package starter

import (
	"context"
	"syscall"

	"github.com/rs/zerolog"

	"github.com/session-starter/session-starter/internal/dockercli"
	"github.com/session-starter/session-starter/internal/end"
	"github.com/session-starter/session-starter/internal/wire"
)

// containerLayer is the container a `docker run` or `podman run` Engine
// runs (package internal/dockercli). Its engine keeps it running when
// the client dies: every end stops it through the engine first.
type containerLayer struct {
	noLayer
	cli dockercli.CLI
	id  string // the session's id, the label's value
	log zerolog.Logger
}

// holdContainers labels the Engine's container with the session's id and
// adds the layer that stops it. A command line it cannot own is a usage
// error: nothing is started.
func (s *session) holdContainers() error {
	if s.mark == nil {
		return fail(wire.ExitUsage, "--containers needs the session mark (not --no-mark): the label carries the session's id")
	}
	argv, cli, err := dockercli.Prepare(s.spec.Argv, s.spec.Path, s.spec.Env, s.mark.String())
	if err != nil {
		return fail(wire.ExitUsage, "--containers: %w", err)
	}
	s.spec.Argv = argv
	s.layers = append(s.layers, &containerLayer{cli: cli, id: s.mark.String(), log: s.log})
	return nil
}

// before stops the session's containers through their engine, with the
// grace, and removes those made with --rm. It runs before the end signals
// the engine's client or its monitor process (podman's conmon): killed
// first, they leave the container running, or recorded as running.
func (c *containerLayer) before(plan end.Plan) error {
	ctx, cancel := context.WithTimeout(context.Background(), plan.Total())
	defer cancel()
	grace := plan.Grace
	if plan.Stop == syscall.SIGKILL {
		grace = 0
	}
	e, err := c.cli.End(ctx, c.id, grace)
	c.log.Debug().Strs("stopped", e.Stopped).Strs("removed", e.Removed).Err(err).Msg("the session's containers")
	return err
}
