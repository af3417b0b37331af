package main

import (
	"slices"
	"testing"
)

// lengthsOf is the length in words of each sentence of a doc text.
func lengthsOf(text string) []int {
	var n []int
	for _, s := range sentences(text) {
		n = append(n, len(s))
	}
	return n
}

func TestSentencesFollowTheRules(t *testing.T) {
	for _, tt := range []struct {
		name string
		text string
		want []int
	}{
		{"a period, a question and an exclamation mark end sentences",
			"One two three. Four five? Six!\n", []int{3, 2, 1}},
		{"a closing parenthesis or quote after the period does not hide the end",
			"It ends (here.) Then \"this one.\" And that.\n", []int{3, 3, 2}},
		{"a period before a lowercase word, a number or a path does not end one",
			"Use it, e.g. a pipe of 0.5 s or os/exec.Cmd. Then stop.\n", []int{10, 2}},
		{"a paragraph's end ends a sentence without a period",
			"No period here\n\nNext paragraph.\n", []int{3, 2}},
		{"a sentence runs across the lines of a paragraph",
			"One two\nthree four.\n", []int{4}},
		{"a code block is left out",
			"Run it.\n\n\tgo run ./scripts/docstats -check and many more words here\n\nDone.\n", []int{2, 1}},
		{"a table in a code block is left out",
			"See the table.\n\n\t| flag | meaning |\n\t| --ack | writes the ack line |\n", []int{3}},
		{"a heading is not a sentence",
			"Intro text.\n\n# A Heading Of Words\n\nBody text.\n", []int{2, 2}},
		{"each list item ends a sentence, and its marker is not a word",
			"Modes:\n\n  - group mode\n  - cgroup mode, with a cgroup\n\nSteps:\n\n  1. numbered item\n  2. another\n", []int{1, 2, 5, 1, 2, 1}},
		{"a list item of two sentences is two sentences",
			"List:\n\n  - First one. Second one here\n", []int{1, 2, 3}},
		{"a dash standing alone is not a word",
			"The starter — not the gate — ends it.\n", []int{7}},
		{"a doc link counts as its text",
			"[Guard.AwaitArmed] returns nil, and [os/exec] too.\n", []int{6}},
	} {
		if got := lengthsOf(tt.text); !slices.Equal(got, tt.want) {
			t.Errorf("%s: %q: sentence lengths %v, want %v", tt.name, tt.text, got, tt.want)
		}
	}
}
