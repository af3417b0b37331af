package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/spf13/pflag"

	"github.com/session-starter/session-starter/internal/sys"
	"github.com/session-starter/session-starter/starter"
	"github.com/session-starter/session-starter/starter/launch"
)

// invocation is a parsed command line.
type invocation struct {
	opts          starter.Options
	ack           bool
	help, version bool
	usage         string
	logLevel      string
	logFormat     string
}

// parse turns session-starter's arguments (without argv[0]) into an
// invocation. Every error is a usage error; nothing has been started.
func parse(args []string) (*invocation, error) {
	fs := pflag.NewFlagSet("session-starter", pflag.ContinueOnError)
	fs.SetInterspersed(false)
	fs.SetOutput(io.Discard)
	inv := &invocation{}
	fs.BoolVar(&inv.ack, "ack", false, "write the ack line to stdout once containment exists, before PROGRAM runs")
	watchParent := fs.Bool("watch-parent", false, "end the session when the process that started session-starter is gone")
	parentPID := fs.Int("parent-pid", 0, "the launcher's PID; a different parent at start means it is gone (implies --watch-parent)")
	controlFD := fs.Int("control-fd", 0, "end the session when descriptor `N` reaches end of input (a pipe or socket)")
	statusFD := fs.Int("status-fd", 0, "write JSON records (started, ended) for launchers on descriptor `N`")
	budget := durationFlag(fs, "kill-budget", launch.DefaultKillBudget, "how long to keep ending the group before reporting survivors (`D` > 0)")
	grace := durationFlag(fs, "grace", 0, "on a stop, send --stop-signal to the group first and wait up to `D` for it to empty before SIGKILL (0: SIGKILL at once)")
	stopSignal := fs.String("stop-signal", "TERM", "the signal --grace sends first")
	timeout := durationFlag(fs, "timeout", 0, "end the session `D` after the Engine started; exit status 124 (0: no timeout)")
	containment := fs.String("containment", "auto", "how the session is held: auto, group or cgroup (Linux; auto takes cgroup where a session cgroup can be made)")
	fs.StringVar(&inv.logLevel, "log-level", "warn", "diagnostics on stderr: debug, info, warn, error, disabled")
	fs.StringVar(&inv.logFormat, "log-format", "auto", "diagnostics format: auto, json, console")
	fs.BoolVar(&inv.version, "version", false, "print the version and exit")
	fs.BoolVarP(&inv.help, "help", "h", false, "print this help and exit")

	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if inv.help || inv.version {
		// Built only here: laying out the flags' help costs a session's
		// start-up tens of microseconds.
		inv.usage = usageHead + fs.FlagUsages()
		return inv, nil
	}
	// The first argument that is not a flag starts PROGRAM (pflag stops
	// there, as SetInterspersed(false) asks); "--" is needed only for a
	// PROGRAM whose name starts with "-".
	if fs.NArg() == 0 {
		return nil, errors.New("missing PROGRAM")
	}
	if fs.Changed("parent-pid") && *parentPID <= 0 {
		return nil, fmt.Errorf("--parent-pid %d: must be a PID", *parentPID)
	}
	for _, fd := range []struct {
		name string
		n    int
	}{{"control-fd", *controlFD}, {"status-fd", *statusFD}} {
		if fs.Changed(fd.name) && fd.n <= 2 {
			return nil, fmt.Errorf("--%s %d: must be greater than 2", fd.name, fd.n)
		}
	}
	if *budget <= 0 {
		return nil, errors.New("--kill-budget must be positive")
	}
	if *grace < 0 {
		return nil, errors.New("--grace must not be negative")
	}
	if *timeout < 0 {
		return nil, errors.New("--timeout must not be negative")
	}
	sig, ok := sys.SignalByName(*stopSignal)
	if !ok {
		return nil, fmt.Errorf("--stop-signal %q: not a signal name or number", *stopSignal)
	}
	mode, err := starter.ParseContainment(*containment)
	if err != nil {
		return nil, err
	}
	inv.opts = starter.Options{
		Containment: mode,
		Argv:        fs.Args(),
		WatchParent: *watchParent,
		ParentPID:   *parentPID,
		ControlFD:   *controlFD,
		StatusFD:    *statusFD,
		KillBudget:  *budget,
		Grace:       *grace,
		StopSignal:  sig,
		Timeout:     *timeout,
	}
	return inv, nil
}
