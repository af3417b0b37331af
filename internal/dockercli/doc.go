// Package dockercli lets a session own the containers its Engine runs.
// The Engine is a `docker run` or `podman run` command line. [Prepare]
// adds a label with the session's id to it, right after run. When the
// session ends, [CLI.End] asks the same engine, through the same CLI, to
// stop the containers that carry that label, then removes those made
// with --rm. podman's CLI is docker's: one dialect serves both.
//
// # Guarantees
//
// Every action reads each container's label back first, by the
// container's full id. A container of another session, or of none, is
// never stopped or removed. The engine is reached as the Engine reached
// it: the same binary, the same global options (--context, -H, --remote,
// --connection, --root…), the same endpoint environment ([EndpointVars]).
//
// # Failure rule
//
// A command line that is not one run of a container in the foreground
// is refused by Prepare: another subcommand, -d, a global option this
// package does not know (written --opt=VALUE it passes), or a label of
// the session's key given by hand. An engine that does not answer within
// the End's bound is an error: the containers may live on.
package dockercli
