package main

import (
	"errors"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/session-starter/session-starter/starter/launch"
)

// parsedValue is a pflag.Value of type typ that parse reads into *p and
// show writes: session-starter's own forms of durations, sizes and CPUs.
type parsedValue[T any] struct {
	p     *T
	typ   string
	parse func(string) (T, error)
	show  func(T) string
}

func (v parsedValue[T]) Set(s string) error {
	x, err := v.parse(s)
	if err != nil {
		return err
	}
	*v.p = x
	return nil
}

func (v parsedValue[T]) String() string { return v.show(*v.p) }
func (v parsedValue[T]) Type() string   { return v.typ }

// durationVarP defines a duration flag read by [parseDuration], with a
// one-letter shorthand ("" for none) and value as its default.
func durationVarP(fs *pflag.FlagSet, p *time.Duration, name, shorthand string, value time.Duration, usage string) {
	*p = value
	fs.VarP(parsedValue[time.Duration]{p, "duration", parseDuration, time.Duration.String}, name, shorthand, usage)
}

// parseDuration reads a duration as session-starter reads its duration
// flags (--grace, --timeout, --kill-budget): as coreutils timeout does —
// a decimal number of seconds, with a fraction and an exponent allowed,
// and an optional single suffix s, m, h or d ("10", ".5", "1.5m", "1d",
// "1e-1", "2.34e-5d") — or in Go's form ("1m30s", "0s", "500ms",
// "1h0m0s"). A positive duration shorter than a nanosecond, even one
// too small for a float64 ("1e-10000", "0.1ns"), is one nanosecond: it
// stays positive, as in coreutils, never 0 (off). Signs,
// hexadecimal and "inf" are refused; a negative Go duration is returned
// for the caller to refuse; anything beyond [launch.MaxDuration] either way is
// [launch.ErrDurationRange].
func parseDuration(s string) (time.Duration, error) {
	var d time.Duration
	if ns, ok := parseSeconds(s); ok {
		if ns > float64(launch.MaxDuration) {
			return 0, launch.ErrDurationRange
		}
		d = time.Duration(math.Round(ns))
	} else {
		var err error
		if d, err = time.ParseDuration(s); err != nil {
			return 0, errors.New("want seconds (10, 0.5, 1e-1), a number with one suffix s, m, h or d (90s, 1.5m, 1d), or a Go duration (1m30s)")
		}
		if d > launch.MaxDuration || d < -launch.MaxDuration {
			return 0, launch.ErrDurationRange
		}
	}
	// Only the Go form takes a sign.
	if d == 0 && nonzero(s) {
		d = 1
		if s[0] == '-' {
			d = -1
		}
	}
	return d, nil
}

// nonzero reports whether a duration's number, before any exponent, has
// a digit other than 0. Its value is then not zero, however small: float
// underflow and Go's truncation to whole nanoseconds must not make it 0.
// Unit suffixes hold no digit; the Go form has no exponent.
func nonzero(s string) bool {
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		s = s[:i]
	}
	return strings.ContainsAny(s, "123456789")
}

// parseSeconds reads the coreutils form, in nanoseconds: digits with at
// most one decimal point and at least one digit, an optional exponent (e
// or E, an optional sign, digits), then an optional unit. Only a number
// that starts with a digit or a point and holds nothing but digits, points
// and an exponent goes to strconv.ParseFloat, so that its other forms
// (hexadecimal, "inf", "nan", a sign, underscores) are not taken; it
// refuses the rest of what is not of that shape. An overflowing exponent
// is out of range.
func parseSeconds(s string) (float64, bool) {
	unit := time.Second
	if n := len(s); n > 0 {
		if i := strings.IndexByte("smhd", s[n-1]); i >= 0 {
			unit = [...]time.Duration{time.Second, time.Minute, time.Hour, 24 * time.Hour}[i]
			s = s[:n-1]
		}
	}
	if s == "" || !strings.ContainsRune("0123456789.", rune(s[0])) || strings.Trim(s, "0123456789.eE+-") != "" {
		return 0, false
	}
	// A range error is an exponent too large for a float64: f is +Inf.
	// Underflow is no error: f is 0, and parseDuration makes it 1 ns.
	f, err := strconv.ParseFloat(s, 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return 0, false
	}
	return f * float64(unit), true
}
