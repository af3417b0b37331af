package main

import (
	"errors"
	"testing"
	"time"

	"github.com/session-starter/session-starter/starter/launch"
)

func TestDurationsAreReadAsTimeoutReadsThem(t *testing.T) {
	tests := []struct {
		in   string
		want time.Duration
	}{
		{"10", 10 * time.Second},
		{".5", 500 * time.Millisecond},
		{"0.25s", 250 * time.Millisecond},
		{"1.5m", 90 * time.Second},
		{"2h", 2 * time.Hour},
		{"1d", 24 * time.Hour},
		{"0.5d", 12 * time.Hour},
		{"0", 0},
		{"0s", 0},
		{"1m30s", 90 * time.Second},
		{"1h0m0s", time.Hour},
		{"500ms", 500 * time.Millisecond},
		{"0.0000000001", 1},
		// Exponents, as strtod reads them for coreutils timeout.
		{"1e-1", 100 * time.Millisecond},
		{"1E1", 10 * time.Second},
		{"1e+2s", 100 * time.Second},
		{"2.34e-5d", 2021760 * time.Microsecond},
		{"1.e1", 10 * time.Second},
		{".5e1m", 5 * time.Minute},
		{"0e5", 0},
		// A positive duration never reads as 0 (off), however small.
		{"1e-400", 1},
		{"1e-10000", 1},
		{"0.0000000000000000000000000001e-400s", 1},
		{"0.1ns", 1},
		{"0.9ns", 1},
		{"0s0.1ns", 1},
		{"-0.1ns", -1},
		{"0.000e-10000", 0},
		{"0.0ns", 0},
	}
	for _, tt := range tests {
		got, err := parseDuration(tt.in)
		if err != nil || got != tt.want {
			t.Errorf("parseDuration(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
		}
	}
	for _, bad := range []string{"", ".", "1.2.3", "inf", "nan", "0x10", "0x1p3", "+1", "-1", "1ss", "1 s", "1w", "s",
		"1e", "1e+", "e1", ".e1", "1e1.5", "1e-1e", "1_000", "1d5"} {
		if got, err := parseDuration(bad); err == nil {
			t.Errorf("parseDuration(%q) = %v, want an error", bad, got)
		}
	}
	for _, long := range []string{"99999999999d", "3000000h", "1e400", "1e10d", "36501d"} {
		if got, err := parseDuration(long); !errors.Is(err, launch.ErrDurationRange) {
			t.Errorf("parseDuration(%q) = %v, %v; want launch.ErrDurationRange", long, got, err)
		}
	}
}
