package main

import (
	"flag"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

var update = flag.Bool("update", false, "rewrite the flag tables of README.md and the manual (doc.go) from the flags' help")

// docTable is a flag table in a documentation file: the lines from the
// one that starts it (its first line, which is unique in the file) to the
// first line that does not continue it.
type docTable struct {
	path      string
	first     string
	continues func(line string) bool
	render    func(fs *pflag.FlagSet) string
}

var docTables = []docTable{
	{
		path:      "../../README.md",
		first:     "| flag | default | meaning |",
		continues: func(l string) bool { return strings.HasPrefix(l, "|") },
		render:    flagTable,
	},
	{
		// The manual's table is --help's: a code block of the package doc.
		path:      "doc.go",
		first:     "//\tFlags:",
		continues: func(l string) bool { return strings.HasPrefix(l, "//\t") },
		render:    manualTable,
	},
}

// TestDocsUpToDate: the flag tables of README.md and of the manual say
// what the flags' help says — the same flags, in the same order, with the
// same defaults and descriptions — since both are generated from it. After
// a change to a flag in flags.go, regenerate them:
//
//	go test ./cmd/session-starter -run TestDocsUpToDate -update
func TestDocsUpToDate(t *testing.T) {
	fs := newFlagSet(&invocation{}, &flagValues{})
	for _, d := range docTables {
		b, err := os.ReadFile(d.path)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.SplitAfter(string(b), "\n")
		start := -1
		for i, l := range lines {
			if strings.TrimSuffix(l, "\n") == d.first {
				if start >= 0 {
					t.Fatalf("%s: two lines %q; want the one that starts the flag table", d.path, d.first)
				}
				start = i
			}
		}
		if start < 0 {
			t.Fatalf("%s: no line %q starts a flag table", d.path, d.first)
		}
		end := start + 1
		for end < len(lines) && d.continues(strings.TrimSuffix(lines[end], "\n")) {
			end++
		}
		got, want := strings.Join(lines[start:end], ""), d.render(fs)
		if got == want {
			continue
		}
		if *update {
			out := strings.Join(lines[:start], "") + want + strings.Join(lines[end:], "")
			if err := os.WriteFile(d.path, []byte(out), 0o644); err != nil {
				t.Fatal(err)
			}
			t.Logf("%s: flag table rewritten from the flags' help", d.path)
			continue
		}
		t.Errorf("%s: the flag table differs from the flags' help (flags.go); run\n"+
			"\tgo test ./cmd/session-starter -run TestDocsUpToDate -update\n"+
			"or make it:\n%s\ngot:\n%s", d.path, want, got)
	}
}

// flagCode quotes the flags named in Markdown text ("--grace") as code.
var flagCode = regexp.MustCompile(`--[a-z][a-z-]*[a-z]`)

// flagTable is the flags of fs as README.md's Markdown table.
func flagTable(fs *pflag.FlagSet) string {
	var b strings.Builder
	b.WriteString("| flag | default | meaning |\n|---|---|---|\n")
	for _, d := range flagDocs(fs) {
		names := strings.Split(d.Flag, ", ")
		for i, n := range names {
			names[i] = "`" + n + "`"
		}
		b.WriteString("| " + strings.Join(names, ", ") + " |")
		if d.Default != "" {
			b.WriteString(" `" + d.Default + "` |")
		} else {
			b.WriteString(" |")
		}
		meaning := strings.ReplaceAll(d.Meaning, "|", `\|`)
		b.WriteString(" " + flagCode.ReplaceAllString(meaning, "`$0`") + " |\n")
	}
	return b.String()
}

// manualTable is --help's flag list as the manual's code block.
func manualTable(fs *pflag.FlagSet) string {
	var b strings.Builder
	b.WriteString("//\tFlags:\n")
	for _, l := range strings.SplitAfter(flagHelp(fs), "\n") {
		if l != "" {
			b.WriteString("//\t" + l)
		}
	}
	return b.String()
}

// TestHelpListsEveryFlagWithoutPflagsNoise: --help names every flag with
// its value and default, and no switch with pflag's "[=true|false]".
func TestHelpListsEveryFlagWithoutPflagsNoise(t *testing.T) {
	inv, err := parse([]string{"--help"})
	if err != nil {
		t.Fatalf("parse(--help) = %v", err)
	}
	if strings.Contains(inv.usage, "[=") {
		t.Errorf("--help shows pflag's [=value] noise:\n%s", inv.usage)
	}
	for _, want := range []string{"\n  --ack ", "\n  --parent-pid P ", "\n  -k, --grace D ", "\n  -h, --help ", "(default 10s)", "(default TERM)"} {
		if !strings.Contains(inv.usage, want) {
			t.Errorf("--help has no %q:\n%s", want, inv.usage)
		}
	}
	newFlagSet(&invocation{}, &flagValues{}).VisitAll(func(f *pflag.Flag) {
		if !strings.Contains(inv.usage, "--"+f.Name+" ") {
			t.Errorf("--help does not list --%s", f.Name)
		}
		// A value named only by its type ("int") says nothing.
		if name, _ := pflag.UnquoteUsage(f); f.Value.Type() != "bool" && !strings.Contains(f.Usage, "`"+name+"`") {
			t.Errorf("--%s: its description names no value in backquotes (`N`, `D`)", f.Name)
		}
	})
}

// TestHelpLinesFitTheWidth: --help fits a terminal of 80 columns.
func TestHelpLinesFitTheWidth(t *testing.T) {
	help := flagHelp(newFlagSet(&invocation{}, &flagValues{}))
	for _, l := range strings.Split(strings.TrimSuffix(help, "\n"), "\n") {
		if n := len([]rune(l)); n > helpWidth {
			t.Errorf("--help line of %d characters, want at most %d: %q", n, helpWidth, l)
		}
	}
}
