package main

// Tests of launchers and habits met in the wild: how people type a
// command line, what odd descriptors, terminals and sizes they hand over.

import (
	"strings"
	"testing"
)

// TestTheFirstArgumentThatIsNotAFlagStartsProgram: `session-starter npm
// run dev`, typed as timeout, env or nohup are; everything from PROGRAM on
// is the Engine's, flags and "--" included.
func TestTheFirstArgumentThatIsNotAFlagStartsProgram(t *testing.T) {
	mark := newMark(t)
	s := start(t, mark, []string{"--ack", "sh", "-c", `echo "$@"; exit 3`, "sh", "--ack", "--", "-x"})
	s.ack()
	if got := s.line(); got != "--ack -- -x" {
		t.Fatalf("Engine's arguments = %q, want --ack -- -x", got)
	}
	wantExit(t, s.wait(), 3, s.stderr)
}

// TestDurationsAreTakenAsCoreutilsTimeoutTakesThem: bare seconds,
// fractions, one suffix s, m, h or d, Go's forms; --timeout 0 is no
// timeout and --grace 0 is SIGKILL at once.
func TestDurationsAreTakenAsCoreutilsTimeoutTakesThem(t *testing.T) {
	tests := []struct {
		name   string
		flags  []string
		script string
		want   int
		report string
	}{
		{"a fraction of a second", []string{"--timeout", ".2"}, "sleep 600 & wait", 124, "timed out after 200ms"},
		{"bare seconds", []string{"--timeout", "600", "--grace", "10"}, "exit 3", 3, ""},
		{"timeout 0 is no timeout", []string{"--timeout", "0"}, "exit 3", 3, ""},
		{"days and minutes", []string{"--timeout", "1d", "--grace", "1.5m", "--kill-budget", "20"}, "exit 3", 3, ""},
		{"Go's form", []string{"--timeout", "1h0m0s", "--grace", "1m30s"}, "exit 3", 3, ""},
		{"grace 0 is SIGKILL at once", []string{"--timeout", "0.2s", "--grace", "0"}, "trap '' TERM; sleep 600 & wait", 124, "timed out after 200ms"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mark := newMark(t)
			s := start(t, mark, append(tt.flags, "--", "sh", "-c", tt.script))
			wantExit(t, s.wait(), tt.want, s.stderr)
			if !strings.Contains(s.stderr.String(), tt.report) {
				t.Fatalf("stderr = %q, want %q", s.stderr, tt.report)
			}
			noSurvivors(t, mark)
		})
	}
}
