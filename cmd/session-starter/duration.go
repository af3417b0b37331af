package main

import (
	"errors"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"
)

// maxDuration bounds every duration flag. A hundred years is longer than
// any session, and keeps deadlines computed from it (now plus grace plus
// kill budget) far from time.Duration's overflow at about 292 years.
const maxDuration = 100 * 365 * 24 * time.Hour

// parseDuration reads a duration as coreutils timeout does — a number of
// seconds, fractions allowed, with an optional single suffix s, m, h or d
// ("10", ".5", "1.5m", "1d") — or in Go's form ("1m30s", "0s", "500ms",
// "1h0m0s", what launch.Launch passes). Negative values are left to the
// caller to refuse; values beyond maxDuration are an error.
func parseDuration(s string) (time.Duration, error) {
	if ns, ok := parseSeconds(s); ok {
		if ns > float64(maxDuration) {
			return 0, errOutOfRange
		}
		d := time.Duration(math.Round(ns))
		if d == 0 && ns > 0 {
			d = 1 // a positive duration stays positive, as in coreutils
		}
		return d, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, errors.New("want seconds (10, 0.5), a number with one suffix s, m, h or d (90s, 1.5m, 1d), or a Go duration (1m30s)")
	}
	if d > maxDuration || d < -maxDuration {
		return 0, errOutOfRange
	}
	return d, nil
}

var errOutOfRange = errors.New("out of range (at most 100 years)")

// parseSeconds reads the coreutils form, in nanoseconds: digits with at
// most one decimal point and at least one digit, then an optional unit.
// Exponents, hex, "inf" and signs are not taken: the Go form covers what
// else is needed.
func parseSeconds(s string) (float64, bool) {
	unit := time.Second
	if n := len(s); n > 0 {
		switch s[n-1] {
		case 's':
			s = s[:n-1]
		case 'm':
			unit, s = time.Minute, s[:n-1]
		case 'h':
			unit, s = time.Hour, s[:n-1]
		case 'd':
			unit, s = 24*time.Hour, s[:n-1]
		}
	}
	digits := 0
	for _, c := range s {
		switch {
		case c >= '0' && c <= '9':
			digits++
		case c != '.':
			return 0, false
		}
	}
	if digits == 0 || strings.Count(s, ".") > 1 {
		return 0, false
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, false
	}
	return f * float64(unit), true
}

// durationValue is a pflag.Value read by parseDuration.
type durationValue time.Duration

func (d *durationValue) Set(s string) error {
	v, err := parseDuration(s)
	if err != nil {
		return err
	}
	*d = durationValue(v)
	return nil
}

func (d *durationValue) String() string { return time.Duration(*d).String() }
func (d *durationValue) Type() string   { return "duration" }

// durationVar defines a duration flag read by parseDuration, with
// value as its default.
func durationVar(fs *pflag.FlagSet, p *time.Duration, name string, value time.Duration, usage string) {
	*p = value
	fs.Var((*durationValue)(p), name, usage)
}
