package main

import (
	"os"
	"strings"
	"testing"
)

func TestLinesAreCountedAsWcLDoes(t *testing.T) {
	for _, tt := range []struct {
		content string
		want    float64
	}{{"", 0}, {"one\n", 1}, {"one\ntwo", 1}, {"one\ntwo\n\n", 3}} {
		r := linesOf("x", 10, func() ([]byte, error) { return []byte(tt.content), nil })
		if r.value != tt.want {
			t.Errorf("lines of %q: %v, want %v (wc -l)", tt.content, r.value, tt.want)
		}
	}
}

func TestAPackageDocsMeanIsItsWordsOverItsSentences(t *testing.T) {
	src := "// Package gate is a gate. It waits.\n//\n//\tcode is not counted here at all\n//\n// Items:\n//\n//   - an item\npackage gate\n"
	r := sentencesIn("gate", "gate/doc.go", []byte(src), nil)
	if r.err != nil {
		t.Fatal(r.err)
	}
	// "Package gate is a gate." 5, "It waits." 2, "Items:" 1, "an item" 2.
	if r.value != 2.5 {
		t.Errorf("mean %v, want 2.5 (10 words, 4 sentences)", r.value)
	}
	if !strings.Contains(r.note, "4 sentences; the longest, 5 words") {
		t.Errorf("note %q", r.note)
	}
	if r := sentencesOf("testdata", "no-such-package"); r.err == nil {
		t.Error("a missing doc.go is not an error")
	}
}

func TestCheckExitsOneWhenAMeasureIsOverItsTarget(t *testing.T) {
	under := row{what: "under", value: 10, target: 10, integer: true}
	over := row{what: "over", value: 25.1, target: 25}
	for _, tt := range []struct {
		rows  []row
		check bool
		want  int
	}{
		{[]row{under}, true, 0},
		{[]row{under, over}, true, 1},
		{[]row{under, over}, false, 0},
		{[]row{{what: "broken", err: os.ErrNotExist}, over}, true, 2},
	} {
		var out strings.Builder
		if got := report(&out, tt.rows, tt.check); got != tt.want {
			t.Errorf("report(%v, check %v) = %d, want %d\n%s", tt.rows, tt.check, got, tt.want, out.String())
		}
	}
	var out strings.Builder
	report(&out, []row{under, over}, true)
	for _, want := range []string{"under", "10", "≤10", "ok", "over", "25.1", "≤25", "OVER"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the table has no %q:\n%s", want, out.String())
		}
	}
}
