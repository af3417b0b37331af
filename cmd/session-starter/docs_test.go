package main

import (
	"flag"
	"os"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/spf13/pflag"
)

var update = flag.Bool("update", false, "rewrite the manual's flag list (doc.go) and docs/ from the flags' help")

// docTable is a flag table in a documentation file: the lines from the
// one that starts it (its first line, which is unique in the file) to the
// first line that does not continue it.
type docTable struct {
	path      string
	first     string
	continues func(line string) bool
	render    func(fs *pflag.FlagSet) string
}

// docTables are the generated flag lists of the docs. README.md has
// none: it links to the manual, whose list gives each flag's long text.
var docTables = []docTable{
	{
		// A code block of the package doc.
		path:      "doc.go",
		first:     "//\tFlags:",
		continues: func(l string) bool { return strings.HasPrefix(l, "//\t") },
		render:    manualTable,
	},
}

// TestDocsUpToDate: the manual's flag list says what the flags' help
// says — the same flags, groups and order, with the same defaults and
// long texts — since it is generated from it. After a change to a flag
// in flags.go, regenerate it:
//
//	go test ./cmd/session-starter -run TestDocsUpToDate -update
func TestDocsUpToDate(t *testing.T) {
	fs := newFlagSet(&invocation{})
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

// manualIndent is how far the manual indents a flag's long text below
// the flag.
const manualIndent = 4

// manualTable is the manual's flag list, a code block of the package
// doc: --help's groups and order, each flag as it is typed with its
// default, then its long text wrapped to helpWidth.
func manualTable(fs *pflag.FlagSet) string {
	var b strings.Builder
	b.WriteString("//\tFlags:\n")
	for _, g := range flagDocs(fs) {
		b.WriteString("//\t" + g.Title + ":\n")
		for _, d := range g.Flags {
			b.WriteString("//\t  " + d.Flag)
			if d.Default != "" {
				b.WriteString(" (default " + d.Default + ")")
			}
			b.WriteString("\n")
			for _, l := range wrapWords(d.Meaning, helpWidth-manualIndent) {
				b.WriteString("//\t" + strings.Repeat(" ", manualIndent) + l + "\n")
			}
		}
	}
	return b.String()
}

// wrapWords breaks s at spaces into lines of at most width characters;
// a longer word gets a line of its own.
func wrapWords(s string, width int) []string {
	var lines []string
	line := ""
	for _, w := range strings.Fields(s) {
		switch {
		case line == "":
			line = w
		case utf8.RuneCountInString(line)+1+utf8.RuneCountInString(w) <= width:
			line += " " + w
		default:
			lines = append(lines, line)
			line = w
		}
	}
	return append(lines, line)
}

// TestHelpListsEveryFlagWithoutPflagsNoise: --help gives every flag one
// line, with its value and default, and no switch pflag's
// "[=true|false]".
func TestHelpListsEveryFlagWithoutPflagsNoise(t *testing.T) {
	inv, err := parse([]string{"--help"})
	if err != nil {
		t.Fatalf("parse(--help) = %v", err)
	}
	if strings.Contains(inv.usage, "[=") {
		t.Errorf("--help shows pflag's [=value] noise:\n%s", inv.usage)
	}
	for _, want := range []string{"\n  --ack ", "\n  --parent-pid P ", "\n  -k, --grace D ", "\n  -h, --help ", "(default 10s)\n", "(default TERM)\n"} {
		if !strings.Contains(inv.usage, want) {
			t.Errorf("--help has no %q:\n%s", want, inv.usage)
		}
	}
	newFlagSet(&invocation{}).VisitAll(func(f *pflag.Flag) {
		line := regexp.MustCompile(`(?m)^  (-., )?--` + f.Name + `( |$)`)
		if n := len(line.FindAllString(inv.usage, -1)); n != 1 {
			t.Errorf("--help has %d lines of --%s, want 1", n, f.Name)
		}
		// A value named only by its type ("int") says nothing.
		if name, _ := pflag.UnquoteUsage(f); f.Value.Type() != "bool" && !strings.Contains(f.Usage, "`"+name+"`") {
			t.Errorf("--%s: its description names no value in backquotes (`N`, `D`)", f.Name)
		}
	})
}

// TestHelpGroupsEveryFlag: each flag is in exactly one of --help's
// groups, with a line of its own shorter than its long text.
func TestHelpGroupsEveryFlag(t *testing.T) {
	seen := map[string]int{}
	for _, g := range helpGroups {
		for _, l := range g.Flags {
			seen[l.Name]++
		}
	}
	fs := newFlagSet(&invocation{})
	fs.VisitAll(func(f *pflag.Flag) {
		if seen[f.Name] != 1 {
			t.Errorf("--%s is in %d of helpGroups' groups, want 1", f.Name, seen[f.Name])
		}
		delete(seen, f.Name)
	})
	for name := range seen {
		t.Errorf("helpGroups names --%s, which is no flag", name)
	}
	for _, g := range flagDocs(fs) {
		for _, d := range g.Flags {
			if d.Line == "" || len(d.Line) >= len(d.Meaning) {
				t.Errorf("%s: its --help line %q is not a shorter form of its long text", d.Flag, d.Line)
			}
		}
	}
}

// TestHelpFitsAScreen: --help is at most 60 lines, each of them within a
// terminal's 80 columns less the manual's indent.
func TestHelpFitsAScreen(t *testing.T) {
	inv, err := parse([]string{"--help"})
	if err != nil {
		t.Fatalf("parse(--help) = %v", err)
	}
	lines := strings.Split(strings.TrimSuffix(inv.usage, "\n"), "\n")
	if len(lines) > 60 {
		t.Errorf("--help has %d lines, want at most 60", len(lines))
	}
	for _, l := range lines {
		if n := len([]rune(l)); n > helpWidth {
			t.Errorf("--help line of %d characters, want at most %d: %q", n, helpWidth, l)
		}
	}
}
