package main

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/session-starter/session-starter/internal/mark"
	"github.com/session-starter/session-starter/internal/sys"
	"github.com/session-starter/session-starter/starter"
	"github.com/session-starter/session-starter/starter/launch"
)

// invocation is a parsed command line.
type invocation struct {
	opts            starter.Options
	ack             bool
	help, version   bool
	reclaim, dryRun bool
	endReleased     string // the call's session id
	explain         bool
	usage           string
	logLevel        string
	logFormat       string
	stopSignal      string // the name --stop-signal gives, read into opts
}

// newFlagSet defines session-starter's flags. Each flag's description
// here is its long text: the manual (doc.go, kept equal to it by
// TestDocsUpToDate) and the man page show it; --help shows the one line
// helpGroups gives the flag. A flag's value is named in backquotes in its
// description (`N`, `D`); a bool flag takes none.
func newFlagSet(inv *invocation) *pflag.FlagSet {
	fs := pflag.NewFlagSet("session-starter", pflag.ContinueOnError)
	fs.SetInterspersed(false)
	fs.SetOutput(io.Discard)
	fs.SortFlags = false
	fs.BoolVar(&inv.ack, "ack", false,
		"Write the ack line to stdout once containment exists, before PROGRAM runs.")
	fs.BoolVar(&inv.opts.Stdio, "stdio", false,
		"The Engine is a stdio server (MCP, ACP, a language server): --watch-parent, and --watch-stdin where stdin "+
			"is a pipe or a stream socket. Where it is not (a terminal, /dev/null, a file; on Windows any) stdin is "+
			"not watched, and that is no error.")
	fs.BoolVar(&inv.opts.WatchParent, "watch-parent", false,
		"End the session when the process that started session-starter is gone. "+
			"Without --parent-pid the parent is what getppid() returns at start.")
	fs.IntVar(&inv.opts.ParentPID, "parent-pid", 0,
		"The launcher's own PID `P`. If session-starter's parent at start is not P, "+
			"the launcher is gone already and nothing is executed (exit 125). Implies --watch-parent.")
	fs.BoolVar(&inv.opts.WatchStdin, "watch-stdin", false,
		"End the session when the launcher's end of the Engine's standard input is gone: a pipe's last writer "+
			"closed, a stream socket's peer shut down. The Engine gets --stdin-grace to exit by itself first. "+
			"A terminal, /dev/null, a file, a listening or datagram socket, or a pipe that a passed descriptor "+
			"writes to is a usage error (2). Data the Engine has not read does not end it.")
	durationVarP(fs, &inv.opts.StdinGrace, "stdin-grace", "", launch.DefaultStdinGrace,
		"With --watch-stdin or --stdio, how long `D` the Engine is given to exit by itself once its standard input "+
			"hung up; then the session ends as on any stop. Without them it is a usage error (2).")
	fs.IntVar(&inv.opts.ControlFD, "control-fd", 0,
		"End the session when descriptor `N` reaches end of input; data read from it is ignored. "+
			"N must be a pipe or stream socket passed open and not close-on-exec, greater than 2, not stdin's, "+
			"and one no other passed descriptor writes to; else it is a usage error (2). The Engine does not inherit N.")
	durationVarP(fs, &inv.opts.Grace, "grace", "k", 0,
		"On every end of the session, send --stop-signal and then SIGCONT to every process of the session at once, "+
			"and SIGKILL what is left after `D`. The session's second stop signal during the grace "+
			"goes straight to SIGKILL. 0: SIGKILL at once.")
	fs.StringVarP(&inv.stopSignal, "stop-signal", "s", "TERM",
		"The signal `SIG` that --grace sends first: a name (TERM, SIGINT, usr1) or a number.")
	durationVarP(fs, &inv.opts.Timeout, "timeout", "", 0,
		"End the session `D` after the Engine was released; exit status 124 (as coreutils timeout), "+
			"with a report on stderr. 0: no timeout.")
	fs.IntVar(&inv.opts.StatusFD, "status-fd", 0,
		"Write JSON records for launchers on descriptor `N`: started when the Engine is released, "+
			"ended last. N must be one the launcher passed open for writing, greater than 2. "+
			"The Engine does not inherit N.")
	fs.StringVar((*string)(&inv.opts.Containment), "containment", string(launch.ContainAuto),
		"Hold the session in mode `M`: group (the process group plus the subreaper sweep), "+
			"cgroup (also a cgroup v2 of its own), or auto (cgroup where one can be made, else group). "+
			"Where cgroup mode is asked for and impossible, session-starter exits 125 and nothing is executed. "+
			"A limit, --call-limits or --cgroup-parent asks for cgroup mode.")
	limitFlags(fs, &inv.opts.Limits, &inv.opts.CgroupParent)
	durationVarP(fs, &inv.opts.KillBudget, "kill-budget", "", launch.DefaultKillBudget,
		"After the grace, send SIGKILL in rounds for up to `D`, then report survivors (exit 125); "+
			"the guard does the same. Must be more than 0. session-starter exits at most grace + kill budget + "+
			launch.EndSlack.String()+" after the end began.")
	fs.BoolVar(&inv.opts.Containers, "containers", false,
		"PROGRAM is a docker run or podman run command line: label its container with the session's id, and on "+
			"every end have the same engine stop it with --grace, and remove it if made with --rm, before anything "+
			"is signalled. -d, another subcommand or another program is a usage error. Not on Windows.")
	fs.BoolVar(&inv.opts.NoMark, "no-mark", false,
		"Leave the session mark ("+launch.SessionVar+") out of the Engine's environment. Then the guard cannot find "+
			"the processes that left the Engine's group after a SIGKILL of session-starter, and a nested session or "+
			"contained call does not know its session.")
	fs.BoolVar(&inv.opts.ReleaseOnExit, "release-on-exit", false,
		"When the Engine exits on its own, end nothing: what it left stays, for the enclosing session to end, "+
			"and the ended record lists it (outcome released). Every other end ends everything. Needs an enclosing "+
			"session, else it is a usage error. Not on Windows or macOS.")
	fs.StringVar(&inv.logLevel, "log-level", "warn",
		"Diagnostics on stderr at level `L`: debug, info, warn, error, disabled.")
	fs.StringVar(&inv.logFormat, "log-format", "auto",
		"The diagnostics' format `F`: auto, json or console (zerolog). "+
			"Failure reports are always one plain line \"session-starter: …\".")
	fs.BoolVar(&inv.reclaim, "reclaim", false,
		"Run no PROGRAM: end what dead sessions of this user left behind, where session-starter and its guard "+
			"were SIGKILLed together (the manual: the ledger). Prints what it ended and what it left, and writes a "+
			"JSON record to --status-fd. Exit 0, or 125 when a process verified as a session's is left.")
	fs.BoolVar(&inv.dryRun, "dry-run", false, "With --reclaim: list what would be ended, and end nothing.")
	fs.StringVar(&inv.endReleased, "end-released", "",
		"Run no PROGRAM: end what a call run with --release-on-exit left running. `ID` is the call's session id "+
			"(its started record's session). Ends them with --stop-signal and --grace, then SIGKILL for up to "+
			"--kill-budget, and writes a JSON record to --status-fd. Exit 0 when none is left, 125 when some are. "+
			"Linux only.")
	fs.BoolVar(&inv.explain, "explain", false,
		"Run no PROGRAM: print the mode --containment would give here and why, whether a session cgroup can be "+
			"made, what --watch-parent would watch, the kernel features found, and with PROGRAM where PATH finds it. "+
			"The other flags are read as for a session. Exit 0.")
	fs.BoolVar(&inv.version, "version", false, "Print the version and exit.")
	fs.BoolVarP(&inv.help, "help", "h", false, "Print this help and exit.")
	return fs
}

// parse turns session-starter's arguments (without argv[0]) into an
// invocation. Every error is a usage error; nothing has been started.
func parse(args []string) (*invocation, error) {
	inv := &invocation{}
	fs := newFlagSet(inv)
	if err := read(fs, inv, args); err != nil {
		return nil, suggestLong(fs, args, err)
	}
	return inv, nil
}

// read parses args into inv with fs, whose flags set inv.
func read(fs *pflag.FlagSet, inv *invocation, args []string) error {
	if err := fs.Parse(args); err != nil {
		return err
	}
	o := &inv.opts
	if inv.help || inv.version {
		// Built only here: laying out the flags' help costs a session's
		// start-up tens of microseconds.
		inv.usage = usageHead + flagHelp(fs) + helpFoot
		return nil
	}
	if inv.dryRun && !inv.reclaim {
		return errors.New("--dry-run goes with --reclaim")
	}
	if inv.reclaim {
		if fs.NArg() > 0 {
			return fmt.Errorf("--reclaim runs no PROGRAM (got %q)", fs.Arg(0))
		}
		if fs.Changed("status-fd") && o.StatusFD <= 2 {
			return fmt.Errorf("--status-fd %d: must be greater than 2", o.StatusFD)
		}
		return nil
	}
	// The first argument that is not a flag starts PROGRAM (pflag stops
	// there, as SetInterspersed(false) asks); "--" is needed only for a
	// PROGRAM whose name starts with "-".
	if _, err := mark.Parse(inv.endReleased); inv.endReleased != "" && err != nil {
		return fmt.Errorf("--end-released %q: %w", inv.endReleased, err)
	}
	if inv.endReleased != "" && fs.NArg() > 0 {
		return fmt.Errorf("--end-released runs no PROGRAM (got %q)", fs.Arg(0))
	}
	if fs.NArg() == 0 && !inv.explain && inv.endReleased == "" {
		return errors.New("missing PROGRAM")
	}
	if fs.Changed("parent-pid") && o.ParentPID <= 0 {
		return fmt.Errorf("--parent-pid %d: must be a PID", o.ParentPID)
	}
	for _, fd := range []struct {
		name string
		n    int
	}{{"control-fd", o.ControlFD}, {"status-fd", o.StatusFD}} {
		if fs.Changed(fd.name) && fd.n <= 2 {
			return fmt.Errorf("--%s %d: must be greater than 2", fd.name, fd.n)
		}
	}
	if o.KillBudget <= 0 {
		return errors.New("--kill-budget must be positive")
	}
	for _, d := range []struct {
		name string
		d    time.Duration
	}{{"grace", o.Grace}, {"timeout", o.Timeout}, {"stdin-grace", o.StdinGrace}} {
		if d.d < 0 {
			return fmt.Errorf("--%s must not be negative", d.name)
		}
	}
	if fs.Changed("stdin-grace") && !o.WatchStdin && !o.Stdio {
		return errors.New("--stdin-grace goes with --watch-stdin or --stdio: without them no hang-up is watched")
	}
	var ok bool
	if o.StopSignal, ok = sys.SignalByName(inv.stopSignal); !ok {
		return fmt.Errorf("--stop-signal %q: not a signal name or number", inv.stopSignal)
	}
	if _, err := parseContainment(string(o.Containment)); err != nil {
		return err
	}
	for _, l := range []struct {
		name string
		zero bool
	}{{"max-tasks", o.Limits.MaxTasks <= 0}, {"max-memory", o.Limits.MaxMemory == 0}} {
		if fs.Changed(l.name) && l.zero {
			return fmt.Errorf("--%s: %w", l.name, errZeroLimit)
		}
	}
	if fs.Changed("cgroup-parent") && o.CgroupParent == "" {
		return errors.New("--cgroup-parent: an empty directory name")
	}
	o.Argv = fs.Args()
	return nil
}

// suggestLong adds to a parse error the long flag a single dash was
// typed before, when there is one: "-timeout 1" reads as the unknown
// shorthand 't', and "-stop-signal TERM" as -s with the value
// "top-signal". The first argument before "--" that is a dash and a long
// flag's name (with or without "=value") is named.
func suggestLong(fs *pflag.FlagSet, args []string, err error) error {
	for _, arg := range args {
		if arg == "--" {
			break
		}
		if !strings.HasPrefix(arg, "-") || strings.HasPrefix(arg, "--") {
			continue
		}
		name, _, _ := strings.Cut(arg[1:], "=")
		if len(name) > 1 && fs.Lookup(name) != nil {
			return fmt.Errorf("%w; did you mean --%s?", err, name)
		}
	}
	return err
}

// helpGroups orders the flags in --help, the manual and the man page,
// in titled groups, and gives each (by its Name) its Line, the one line
// --help shows; flagDocs fills in the rest. The flag's description where
// it is defined (its pflag usage) is its long text, which the manual and
// the man page show. TestHelpGroupsEveryFlag holds each flag in exactly
// one group.
var helpGroups = []flagGroup{
	{"Session end", []flagDoc{
		{Name: "stdio", Line: "a stdio server: --watch-parent, --watch-stdin"},
		{Name: "watch-parent", Line: "end the session when the launcher is gone"},
		{Name: "parent-pid", Line: "the launcher's PID; implies --watch-parent"},
		{Name: "watch-stdin", Line: "end the session when stdin hangs up"},
		{Name: "stdin-grace", Line: "time to exit by itself after the hang-up"},
		{Name: "control-fd", Line: "end the session at end of input on N"},
		{Name: "timeout", Line: "end the session after D; exit 124"},
	}},
	{"Ending", []flagDoc{
		{Name: "grace", Line: "send --stop-signal first, SIGKILL after D"},
		{Name: "stop-signal", Line: "the signal --grace sends first"},
		{Name: "kill-budget", Line: "then SIGKILL for up to D, or exit 125"},
	}},
	{"Containment and limits", []flagDoc{
		{Name: "containment", Line: "group, cgroup or auto"},
		{Name: "max-tasks", Line: "at most N tasks live, threads included"},
		{Name: "max-memory", Line: "at most SIZE of memory (512M, 2G), no swap"},
		{Name: "max-swap", Line: "with --max-memory, at most SIZE of swap"},
		{Name: "max-cpu", Line: "at most CPUS of CPU time (0.5, 50%, 2)"},
		{Name: "call-limits", Line: "limits contained calls set: tasks,memory,cpu"},
		{Name: "cgroup-parent", Line: "make the session cgroup in cgroup v2 DIR"},
		{Name: "containers", Line: "PROGRAM is docker or podman run: end it too"},
		{Name: "no-mark", Line: "leave the session mark out of the environment"},
		{Name: "release-on-exit", Line: "a nested call: leave what the Engine left"},
	}},
	{"Records and diagnostics", []flagDoc{
		{Name: "ack", Line: "write the ack line once contained"},
		{Name: "status-fd", Line: "write JSON records to descriptor N"},
		{Name: "log-level", Line: "debug, info, warn, error or disabled"},
		{Name: "log-format", Line: "auto, json or console"},
	}},
	{"Other modes", []flagDoc{
		{Name: "reclaim", Line: "end what SIGKILLed sessions left running"},
		{Name: "dry-run", Line: "with --reclaim: list, and end nothing"},
		{Name: "end-released", Line: "end what call ID left with --release-on-exit"},
		{Name: "explain", Line: "print the containment mode here, and why"},
		{Name: "version", Line: "print the version and exit"},
		{Name: "help", Line: "print this help and exit"},
	}},
}

// helpFoot ends --help: where the long texts are.
const helpFoot = "\nEach flag in full: man session-starter, or go doc -all ./cmd/session-starter.\n"

// flagDoc is one flag as --help and the docs list it.
type flagDoc struct {
	// Name is its long name: "grace".
	Name string
	// Flag is how it is typed: "--grace D", "-h, --help".
	Flag string
	// Default is its default as a user types it, or empty for a switch
	// (a bool flag), for a number whose 0 means "none" and for an
	// empty list.
	Default string
	// Line is its one line in --help, without the default.
	Line string
	// Meaning is its long text, the value's name unquoted.
	Meaning string
}

// flagGroup is a titled group of flagDocs.
type flagGroup struct {
	Title string
	Flags []flagDoc
}

// flagDocs lists the flags of fs in helpGroups' groups and order. It
// panics on a flag helpGroups names and fs does not define.
func flagDocs(fs *pflag.FlagSet) []flagGroup {
	var groups []flagGroup
	for _, g := range helpGroups {
		fg := flagGroup{Title: g.Title}
		for _, l := range g.Flags {
			f := fs.Lookup(l.Name)
			if f == nil {
				panic("helpGroups names --" + l.Name + ", which is no flag")
			}
			fg.Flags = append(fg.Flags, docOf(f, l.Line))
		}
		groups = append(groups, fg)
	}
	return groups
}

// docOf is flag f as the docs list it, with line its line in --help.
func docOf(f *pflag.Flag, line string) flagDoc {
	name, meaning := pflag.UnquoteUsage(f)
	d := flagDoc{Name: f.Name, Flag: "--" + f.Name, Line: line, Meaning: meaning}
	if f.Shorthand != "" {
		d.Flag = "-" + f.Shorthand + ", " + d.Flag
	}
	if f.Value.Type() == "bool" {
		return d // a switch: no value, and pflag's "[=true|false]" is noise
	}
	d.Flag += " " + name
	d.Default = f.DefValue
	switch f.DefValue {
	case "0", "[]": // a number whose 0 means none, an empty list
		d.Default = ""
	case "0s":
		d.Default = "0" // as a user types it: 0 means none
	}
	return d
}

// helpWidth is the width of --help: a terminal's 80 columns, less the
// two the manual indents it by.
const helpWidth = 78

// flagHelp lays out the flags of fs for --help: each group's title, then
// each flag as it is typed and its line, with its default. It replaces
// pflag's FlagUsages, which prints "[=true|false]" after every switch.
func flagHelp(fs *pflag.FlagSet) string {
	groups := flagDocs(fs)
	col := 0
	for _, g := range groups {
		for _, d := range g.Flags {
			col = max(col, len(d.Flag))
		}
	}
	var b strings.Builder
	for _, g := range groups {
		b.WriteString(g.Title + ":\n")
		for _, d := range g.Flags {
			text := d.Line
			if d.Default != "" {
				text += " (default " + d.Default + ")"
			}
			fmt.Fprintf(&b, "  %-*s  %s\n", col, d.Flag, text)
		}
	}
	return b.String()
}

// parseContainment reads a --containment value.
func parseContainment(s string) (launch.Containment, error) {
	switch c := launch.Containment(s); c {
	case launch.ContainAuto, launch.ContainGroup, launch.ContainCgroup:
		return c, nil
	}
	return "", fmt.Errorf("--containment %q: want auto, group or cgroup", s)
}
