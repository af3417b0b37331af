package main

import (
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/session-starter/session-starter/internal/wire"
	"github.com/session-starter/session-starter/starter/launch"
)

// FuzzParse checks the command-line parser on arbitrary argument lists
// (the fuzzer's string, split at NUL bytes). Properties: it never panics;
// an error comes with no invocation; a success is help, version, or a
// session whose Engine command line is, byte for byte, the end of the
// arguments, either after a "--" or starting with an argument that is not
// a flag, with descriptors, budgets and PIDs in their ranges.
func FuzzParse(f *testing.F) {
	for _, seed := range [][]string{
		{"--", "sh", "-c", "exit 3"},
		{"--ack", "--parent-pid", "123", "--", "engine", "serve", "--stdio"},
		{"--control-fd", "3", "--status-fd", "4", "--", "x"},
		{"--grace", "2s", "--stop-signal", "INT", "--timeout", "1m", "--", "make", "test"},
		{"--log-level", "--", "--", "prog"},
		{"--kill-budget", "0s", "--", "x"},
		{"-h"},
		{"--version", "--", "x"},
		{"prog", "--", "x"},
		{"--", "prog", "--", "--ack"},
		{"--ack=false", "--watch-parent", "--", "é", ""},
		{"--control-fd", "-1", "--", "x"},
		{"--stop-signal", "99", "--grace", "-1s", "--", "x"},
		{"npm", "run", "dev"},
		{"--ack", "-", "x"},
		{"--timeout", "0", "--grace", ".5", "--kill-budget", "1d", "make"},
		{"--timeout", "1.5m", "--grace", "1m30s", "x", "--timeout", "3"},
		{"--kill-budget", "0", "x"},
		{"--timeout", "1e3", "x"},
		{"--grace", "2.34e-5d", "--timeout", "1E-1", "x"},
		{"--timeout", "99999999999d", "x"},
		{"-s", "KILL", "-k", "5", "x"},
		{"--explain"},
		{"--reclaim"},
		{"--reclaim", "--dry-run", "--status-fd", "3"},
		{"--end-released", "0123456789abcdef0123456789abcdef"},
	} {
		f.Add(strings.Join(seed, "\x00"))
	}
	f.Fuzz(func(t *testing.T, joined string) {
		args := strings.Split(joined, "\x00")
		if joined == "" {
			args = nil
		}
		inv, err := parse(slices.Clone(args))
		if err != nil {
			if inv != nil {
				t.Fatalf("parse(%q) = %+v, %v; want no invocation with an error", args, inv, err)
			}
			if err.Error() == "" {
				t.Fatalf("parse(%q): an empty error message", args)
			}
			return
		}
		if inv == nil {
			t.Fatalf("parse(%q) = nil, nil", args)
		}
		if (inv.explain || inv.reclaim || inv.endReleased != "") && len(inv.opts.Argv) == 0 {
			return // --explain, --reclaim and --end-released need no PROGRAM
		}
		if inv.help || inv.version {
			if inv.usage == "" {
				t.Fatalf("parse(%q): help or version without a usage text", args)
			}
			return
		}
		argv := inv.opts.Argv
		if len(argv) == 0 {
			t.Fatalf("parse(%q): a session without PROGRAM", args)
		}
		i := len(args) - len(argv)
		if i < 0 || !slices.Equal(args[i:], argv) {
			t.Fatalf("parse(%q): Engine argv %q is not the end of the arguments", args, argv)
		}
		afterDashes := i > 0 && args[i-1] == "--"
		if !afterDashes && len(argv[0]) > 1 && argv[0][0] == '-' {
			t.Fatalf("parse(%q): Engine argv %q starts with a flag and follows no --", args, argv)
		}
		o := inv.opts
		for name, fd := range map[string]int{"control": o.ControlFD, "status": o.StatusFD} {
			if fd != 0 && fd <= 2 {
				t.Fatalf("parse(%q): %s fd %d accepted, want none (0) or > 2", args, name, fd)
			}
		}
		if o.KillBudget <= 0 || o.Grace < 0 || o.Timeout < 0 || o.ParentPID < 0 ||
			max(o.KillBudget, o.Grace, o.Timeout) > launch.MaxDuration {
			t.Fatalf("parse(%q): out of range: budget %v, grace %v, timeout %v, parent %d", args, o.KillBudget, o.Grace, o.Timeout, o.ParentPID)
		}
		if o.StopSignal <= 0 {
			t.Fatalf("parse(%q): stop signal %d", args, o.StopSignal)
		}
	})
}

// TestVersionNamesTheReleaseTheCommitTheGoReleaseAndTheProtocol: without
// a stamped version --version names releaseVersion; a stamped one (make
// dist) wins; the commit, the Go release and the protocol of the hidden
// modes follow.
func TestVersionNamesTheReleaseTheCommitTheGoReleaseAndTheProtocol(t *testing.T) {
	defer func(v, c string) { version, commit = v, c }(version, commit)
	for _, tt := range []struct{ version, commit, want string }{
		{"", "0123456789ab", releaseVersion + " (commit 0123456789ab, " + runtime.Version() + ", protocol " + strconv.Itoa(wire.Protocol) + ")"},
		{"9.9.9", "0123456789ab", "9.9.9 (commit 0123456789ab, " + runtime.Version() + ", protocol " + strconv.Itoa(wire.Protocol) + ")"},
	} {
		version, commit = tt.version, tt.commit
		if got := buildVersion(); got != tt.want {
			t.Errorf("buildVersion() with version %q, commit %q = %q, want %q", tt.version, tt.commit, got, tt.want)
		}
	}
}

// TestCoreutilsTimeoutsSAndKAreStopSignalAndGrace: -s SIG and -k D, as
// `timeout -s INT -k 5` users type them (also -sINT, -k5s, -s=INT), are
// --stop-signal and --grace.
func TestCoreutilsTimeoutsSAndKAreStopSignalAndGrace(t *testing.T) {
	long, err := parse([]string{"--stop-signal", "INT", "--grace", "5", "--", "make", "test"})
	if err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"-s", "INT", "-k", "5", "--", "make", "test"},
		{"-sINT", "-k5s", "make", "test"},
		{"-s=INT", "-k=5", "make", "test"},
		{"-k", "5", "--stop-signal", "2", "make", "test"},
	} {
		inv, err := parse(args)
		if err != nil {
			t.Errorf("parse(%q) = %v", args, err)
			continue
		}
		if inv.opts.StopSignal != long.opts.StopSignal || inv.opts.Grace != long.opts.Grace || !slices.Equal(inv.opts.Argv, long.opts.Argv) {
			t.Errorf("parse(%q): stop signal %v, grace %v, argv %q; want %v, %v, %q", args,
				inv.opts.StopSignal, inv.opts.Grace, inv.opts.Argv, long.opts.StopSignal, long.opts.Grace, long.opts.Argv)
		}
	}
	help, _ := parse([]string{"--help"})
	for _, want := range []string{"\n  -k, --grace D ", "\n  -s, --stop-signal SIG "} {
		if !strings.Contains(help.usage, want) {
			t.Errorf("--help has no %q:\n%s", want, help.usage)
		}
	}
}

// TestExplainNeedsNoProgram: --explain parses the other flags as a
// session would, with or without PROGRAM.
func TestExplainNeedsNoProgram(t *testing.T) {
	for _, args := range [][]string{{"--explain"}, {"--explain", "--containment", "cgroup", "--watch-parent"}, {"--explain", "npx", "-y", "x"}} {
		inv, err := parse(args)
		if err != nil || !inv.explain {
			t.Errorf("parse(%q) = %+v, %v; want an explanation", args, inv, err)
		}
	}
	if _, err := parse([]string{"--explain", "--containment", "box"}); err == nil {
		t.Error("parse(--explain --containment box) = nil error, want the usage error a session gets")
	}
}

// TestParseContainmentReadsTheThreeModesAndRefusesOthers: --containment
// takes the three values of launch.Containment, and nothing else.
func TestParseContainmentReadsTheThreeModesAndRefusesOthers(t *testing.T) {
	for _, c := range []launch.Containment{launch.ContainAuto, launch.ContainGroup, launch.ContainCgroup} {
		if got, err := parseContainment(string(c)); err != nil || got != c {
			t.Errorf("parseContainment(%q) = %q, %v", c, got, err)
		}
	}
	for _, s := range []string{"", "Group", "jail", "cgroup "} {
		if got, err := parseContainment(s); err == nil || !strings.Contains(err.Error(), "want auto, group or cgroup") {
			t.Errorf("parseContainment(%q) = %q, %v; want an error naming the modes", s, got, err)
		}
	}
}
