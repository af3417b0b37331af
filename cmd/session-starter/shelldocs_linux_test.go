package main

import (
	"context"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// completionCase is a command line to complete, its last word the one
// being completed, and what must and must not be offered.
type completionCase struct {
	words   []string
	want    []string
	notWant []string
	// none: nothing at all may be offered.
	none bool
}

var completionCases = []completionCase{
	{words: []string{"--wat"}, want: []string{"--watch-parent", "--watch-stdin"}},
	{words: []string{"-"}, want: []string{"-k", "-s", "-h", "--ack", "--help", "--kill-budget"}},
	{words: []string{"--grace", ""}, none: true},
	{words: []string{"-k", ""}, none: true},
	{words: []string{"-k", "1", "--wat"}, want: []string{"--watch-parent", "--watch-stdin"}},
	{words: []string{"--stop-signal", "TERM", "--ack", "--wat"}, want: []string{"--watch-parent", "--watch-stdin"}},
	{words: []string{"--", "slee"}, want: []string{"sleep"}},
	{words: []string{"--ack", "slee"}, want: []string{"sleep"}},
	{words: []string{"--", "--wat"}, notWant: []string{"--watch-parent"}},
	{words: []string{"sleep", "--wat"}, notWant: []string{"--watch-parent"}},
	{words: []string{"--", "sleep", "--wat"}, notWant: []string{"--watch-parent"}},
}

// checkCompletions runs complete (the words of a case, after
// "session-starter") for each case and checks what it offers.
func checkCompletions(t *testing.T, shell string, complete func(words []string) ([]string, error)) {
	t.Helper()
	for _, c := range completionCases {
		got, err := complete(append([]string{"session-starter"}, c.words...))
		if err != nil {
			t.Errorf("%s: %q: %v", shell, c.words, err)
			continue
		}
		if c.none && len(got) > 0 {
			t.Errorf("%s: %q: offered %q, want nothing", shell, c.words, got)
		}
		for _, w := range c.want {
			if !slices.Contains(got, w) {
				t.Errorf("%s: %q: offered %q, want %s among them", shell, c.words, got, w)
			}
		}
		for _, w := range c.notWant {
			if slices.Contains(got, w) {
				t.Errorf("%s: %q: offered %q, want no %s", shell, c.words, got, w)
			}
		}
	}
}

// lines splits a command's output into its non-empty lines.
func lines(out []byte) []string {
	var l []string
	for _, s := range strings.Split(string(out), "\n") {
		if s != "" {
			l = append(l, s)
		}
	}
	return l
}

// bashComplete is what a non-interactive bash offers through the function
// that complete -p names for session-starter, once the completion file
// is sourced.
const bashComplete = `source "$1"
shift
spec=$(complete -p session-starter) || exit 1
fn=${spec#*-F }
fn=${fn%% *}
COMP_WORDS=("$@")
COMP_CWORD=$(($# - 1))
COMP_LINE="$*"
COMP_POINT=${#COMP_LINE}
"$fn" session-starter "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
for w in "${COMPREPLY[@]}"; do echo "$w"; done
`

// TestTheBashCompletionOffersFlagsThenProgramsWords: bash completes
// flags where a flag can go, nothing for a flag's value, and command
// names, never flags, after "--" or PROGRAM.
func TestTheBashCompletionOffersFlagsThenProgramsWords(t *testing.T) {
	checkCompletions(t, "bash", func(words []string) ([]string, error) {
		out, err := exec.Command("bash", append([]string{"-c", bashComplete, "bash", "docs/session-starter.bash"}, words...)...).Output()
		return lines(out), err
	})
}

// TestTheFishCompletionOffersFlagsThenProgramsWords: fish's complete -C,
// with the completion file sourced, does as bash does.
func TestTheFishCompletionOffersFlagsThenProgramsWords(t *testing.T) {
	if _, err := exec.LookPath("fish"); err != nil {
		t.Skip("fish is not installed (Debian: apt-get install fish)")
	}
	checkCompletions(t, "fish", func(words []string) ([]string, error) {
		line := strings.Join(words, " ")
		out, err := exec.Command("fish", "--no-config", "-c", "source docs/session-starter.fish; complete -C $argv[1]", line).Output()
		var offered []string
		for _, l := range lines(out) {
			w, _, _ := strings.Cut(l, "\t")
			offered = append(offered, w)
		}
		return offered, err
	})
}

// zshComplete types command lines into one interactive zsh (zsh -f, the
// completion system loaded once, the completion's directory first in
// fpath) on a pseudo-terminal of zsh/zpty: after each line, Tab twice,
// which lists what is offered, and then it prints what the terminal
// showed after a line "@@" and the line's index. The line is cleared and
// a print command typed after it: its echo, after the listing, ends the
// read. Each line is typed once the prompt, <ready>, is shown: typed
// before, the terminal would take it as a line, Tabs and all.
const zshComplete = `zmodload zsh/zpty || exit 1
dir=$1
shift
zpty -b z 'zsh -f -i'
zpty -w z "PS1='<''ready''>' PROMPT_EOL_MARK='' fpath=(${(q)dir} \\$fpath); autoload -Uz compinit; compinit -u -D; unsetopt beep"
zpty -r z out '*<ready>*'
i=0
for line in "$@"; do
	zpty -w -n z "session-starter $line"$'\t\t\C-u'
	zpty -w z "print END''ED$i"
	zpty -r z out "*ENDED$i*"
	print -r -- "@@$i"
	print -r -- "$out"
	zpty -r z rest '*<ready>*'
	i=$((i + 1))
done
zpty -d z
`

// terminalEscape matches a terminal's control sequences.
var terminalEscape = regexp.MustCompile("\x1b\\[[0-9;?]*[a-zA-Z]|\r")

// TestTheZshCompletionOffersFlagsThenProgramsWords: zsh, on a terminal,
// with the completion in fpath, does as bash does. What it offered is
// each word the terminal showed that was not typed, starting with a dash
// or naming sleep.
func TestTheZshCompletionOffersFlagsThenProgramsWords(t *testing.T) {
	if _, err := exec.LookPath("zsh"); err != nil {
		t.Skip("zsh is not installed (Debian: apt-get install zsh)")
	}
	dir, err := filepath.Abs("docs")
	if err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("zsh", "-n", "docs/_session-starter").CombinedOutput(); err != nil {
		t.Fatalf("zsh -n docs/_session-starter: %v\n%s", err, out)
	}
	args := []string{"-f", "-c", zshComplete, "zsh", dir}
	for _, c := range completionCases {
		line := strings.Join(c.words, " ")
		if c.words[len(c.words)-1] == "" {
			line += " "
		}
		args = append(args, line)
	}
	// Generous: loading the completion system takes seconds, each
	// completion milliseconds.
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, "zsh", args...).Output()
	if err != nil {
		t.Fatalf("zsh: %v\n%s", err, out)
	}
	shown := regexp.MustCompile("(?m)^@@").Split(terminalEscape.ReplaceAllString(string(out), ""), -1)
	if len(shown) != len(completionCases)+1 {
		t.Fatalf("zsh showed %d completions, want %d:\n%s", len(shown)-1, len(completionCases), out)
	}
	n := 0
	checkCompletions(t, "zsh", func(words []string) ([]string, error) {
		n++
		var offered []string
		for _, f := range strings.Fields(shown[n])[1:] { // [0] is the index
			if !slices.Contains(words, f) && (strings.HasPrefix(f, "-") || strings.HasPrefix(f, "sleep")) {
				offered = append(offered, f)
			}
		}
		return offered, nil
	})
}

// TestTheManPageRendersWithoutWarnings: groff, with every warning on,
// formats the man page for a UTF-8 terminal and an ASCII one (man in
// the C locale) without a word on stderr.
func TestTheManPageRendersWithoutWarnings(t *testing.T) {
	if _, err := exec.LookPath("groff"); err != nil {
		t.Skip("groff is not installed (Debian: apt-get install groff-base)")
	}
	for _, device := range []string{"-Tutf8", "-Tascii"} {
		cmd := exec.Command("groff", "-man", device, "-ww", "-z", "docs/session-starter.1")
		var stderr strings.Builder
		cmd.Stderr = &stderr
		if err := cmd.Run(); err != nil || stderr.Len() > 0 {
			t.Errorf("groff -man %s -ww: %v\n%s", device, err, stderr.String())
		}
	}
}
