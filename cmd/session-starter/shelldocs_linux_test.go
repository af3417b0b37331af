package main

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
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

// TestTheZshCompletionParses: zsh -n reads the zsh completion without
// an error.
func TestTheZshCompletionParses(t *testing.T) {
	if _, err := exec.LookPath("zsh"); err != nil {
		t.Skip("zsh is not installed (Debian: apt-get install zsh)")
	}
	if out, err := exec.Command("zsh", "-n", "docs/_session-starter").CombinedOutput(); err != nil {
		t.Errorf("zsh -n docs/_session-starter: %v\n%s", err, out)
	}
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
