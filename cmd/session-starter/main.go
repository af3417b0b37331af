package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"strings"
	"time"

	"github.com/rs/zerolog"

	"github.com/session-starter/session-starter/internal/exit"
	"github.com/session-starter/session-starter/internal/wire"
	"github.com/session-starter/session-starter/starter"

	// The spawn helper's hidden mode: an installed session-starter plays
	// the helper of an Engine whose main does not call
	// contain.IfRequested.
	_ "github.com/session-starter/session-starter/starter/contain"
)

// version and commit may be set at build time with -ldflags
// "-X main.version=… -X main.commit=…" (make build and make dist set the
// commit; make dist the version too). Without them the version is the
// module's from the build info (go install …@vX.Y.Z), else releaseVersion,
// and the commit the build info's vcs.revision, else "unknown".
var version, commit = "", ""

func main() {
	// The hidden modes come first: their command lines are not ours.
	starter.RunHidden(os.Args)
	// Then the stop signals, before anything else: from here none meets
	// the Go runtime's default handling (exit status 2, which means a
	// usage error only).
	exit.CatchStops()
	// A diagnostic that cannot be written is dropped: zerolog's default
	// is to say so on os.Stderr, whose EPIPE would kill the process.
	zerolog.ErrorHandler = func(error) {}
	stdout, stderr := stdio()
	exit.Apply(run(os.Args[1:], stdout, stderr))
}

const usageHead = `Usage: session-starter [flags] [--] PROGRAM [ARG...]

The first argument that is not a flag starts PROGRAM; "--" is needed only
for a PROGRAM whose name starts with "-". Durations D are seconds (10, 0.5,
1e-1) with an optional suffix s, m, h or d (90s, 1.5m, 1d), as coreutils
timeout takes them, or Go durations (1m30s).

Runs PROGRAM (the Engine) in a new process group behind a guard. When the
session ends — the Engine exits, the launcher is gone (--watch-parent), the
control descriptor reaches end of input, --timeout passes, or SIGTERM,
SIGINT, SIGHUP or SIGQUIT arrives — every process of the group is ended
(SIGKILL, after --stop-signal and --grace if given), and session-starter
exits with the Engine's status (or dies of the Engine's signal; after
SIGQUIT, of SIGQUIT). SIGUSR1, SIGUSR2, SIGWINCH, SIGCONT and SIGALRM are
forwarded to the group; SIGTSTP, SIGTTIN and SIGTTOU stop the group, then
session-starter.

Exit statuses of its own: 2 usage error, 124 --timeout fired, 125
containment failed or members survived, 126 PROGRAM cannot be executed,
127 PROGRAM not found.

`

// run parses args and holds the session. A mode that holds none gives
// the stop signals back first (exit.Uncatch): help, version, a usage
// error, --reclaim and --end-released; --explain does once it has
// removed the cgroup it may make to probe. Only these write to stdout.
func run(args []string, stdout, stderr io.Writer) starter.Verdict {
	inv, err := parse(args)
	switch {
	case err != nil || inv.help || inv.version:
	case inv.explain:
		defer exit.Uncatch()
		return explain(inv, stdout)
	default:
		inv.opts.Logger, err = newLogger(inv.logLevel, inv.logFormat, stderr)
		if err == nil && !inv.reclaim && inv.endReleased == "" {
			return exit.Main(context.Background(), inv.opts, inv.ack)
		}
	}
	exit.Uncatch()
	switch {
	case err != nil:
		fmt.Fprintf(stderr, "session-starter: %s\nRun 'session-starter --help' for usage.\n", err)
		return starter.Verdict{Code: wire.ExitUsage}
	case inv.help:
		fmt.Fprint(stdout, inv.usage)
	case inv.version:
		fmt.Fprintln(stdout, "session-starter", buildVersion())
	case inv.reclaim:
		return reclaim(inv, stdout, stderr)
	default:
		return endReleased(inv, stdout, stderr)
	}
	return starter.Verdict{}
}

func newLogger(level, format string, w io.Writer) (zerolog.Logger, error) {
	lvl, err := zerolog.ParseLevel(level)
	if err != nil || level == "" {
		return zerolog.Nop(), fmt.Errorf("--log-level %q: want debug, info, warn, error or disabled", level)
	}
	// The process's standard error takes each diagnostic only while it
	// has room (exit.Diagnostics): an undrained pipe never blocks the
	// session on a log line.
	out := diagnosticsTo(w)
	switch format {
	case "json":
	case "console", "auto":
		if format == "console" || isTerminal(w) {
			out = zerolog.ConsoleWriter{Out: out, TimeFormat: time.RFC3339}
		}
	default:
		return zerolog.Nop(), errors.New("--log-format: want auto, json or console")
	}
	return zerolog.New(out).Level(lvl).With().Timestamp().Logger(), nil
}

// buildVersion is what --version prints after the name: the version,
// then the commit, the Go release and the protocol of the hidden modes (a
// Go Engine's installed starter must speak its own).
func buildVersion() string {
	v, c := version, commit
	bi, ok := debug.ReadBuildInfo()
	if v == "" && ok && strings.HasPrefix(bi.Main.Version, "v") {
		v = strings.TrimPrefix(bi.Main.Version, "v")
	}
	v = cmp.Or(v, releaseVersion)
	if c == "" && ok {
		for _, kv := range bi.Settings {
			switch kv.Key {
			case "vcs.revision":
				c = kv.Value[:min(len(kv.Value), 12)] + c
			case "vcs.modified":
				if kv.Value == "true" {
					c += "-dirty"
				}
			}
		}
	}
	if c == "" || strings.HasPrefix(c, "-") {
		c = "unknown"
	}
	return fmt.Sprintf("%s (commit %s, %s, protocol %d)", v, c, runtime.Version(), wire.Protocol)
}
