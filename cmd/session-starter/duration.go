package main

import (
	"time"

	"github.com/spf13/pflag"

	"github.com/session-starter/session-starter/starter/launch"
)

// durationValue is a pflag.Value read by [launch.ParseDuration], so that
// the command and the Go SDK read a duration alike.
type durationValue time.Duration

func (d *durationValue) Set(s string) error {
	v, err := launch.ParseDuration(s)
	if err != nil {
		return err
	}
	*d = durationValue(v)
	return nil
}

func (d *durationValue) String() string { return time.Duration(*d).String() }
func (d *durationValue) Type() string   { return "duration" }

// durationVar defines a duration flag read by [launch.ParseDuration],
// with value as its default.
func durationVar(fs *pflag.FlagSet, p *time.Duration, name string, value time.Duration, usage string) {
	durationVarP(fs, p, name, "", value, usage)
}

// durationVarP is durationVar with a one-letter shorthand.
func durationVarP(fs *pflag.FlagSet, p *time.Duration, name, shorthand string, value time.Duration, usage string) {
	*p = value
	fs.VarP((*durationValue)(p), name, shorthand, usage)
}
