package wire

import (
	"fmt"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
)

// Protocol is the version of what a starter and its hidden modes — the
// gate, the guard and the guard's pin, started from a session-starter
// binary, and the spawn helper a Go Engine starts for its contained calls
// (package starter/contain) — say to each other: their command lines,
// descriptors and messages. A change to any of them raises it (9: the
// re-executed gate's descriptors follow the Engine's highest, in a fixed
// order). A Go Engine built with one version of this
// module may start its hidden modes from an installed session-starter of
// another; a hidden mode of another protocol refuses to run
// ([CheckProtocol]).
const Protocol = 9

const hiddenPrefix = "__session-starter-"

// HiddenArg is the first argument that selects the hidden mode name
// ("gate", "guard", "pin", "helper") at this Protocol: "__session-starter-gate__2".
// It cannot be mistaken for a flag or a PROGRAM of session-starter's own
// command line.
func HiddenArg(name string) string {
	return hiddenPrefix + name + "__" + strconv.Itoa(Protocol)
}

// The command names (/proc/PID/comm) of the hidden modes: the gate's
// until it executes the Engine (raw or re-executed; execve replaces it),
// and the guard's.
const (
	GateComm  = "session-gate"
	GuardComm = "session-guard"
)

// players maps the name of each hidden mode this binary plays to the
// function that plays it.
var players = map[string]func(args []string){}

// Play registers play as the player of the hidden modes names. The
// packages that have hidden modes register them in init, so that a binary
// plays the modes of every package it links. play never returns.
func Play(play func(args []string), names ...string) {
	for _, n := range names {
		players[n] = play
	}
}

// RunHidden plays the hidden mode args (os.Args) asks for, of any
// protocol (each player refuses another than its own), and never returns
// then. It returns at once when args asks for no mode this binary plays.
func RunHidden(args []string) {
	if len(args) < 2 {
		return
	}
	if name, _, ok := ParseHidden(args[1]); ok && players[name] != nil {
		players[name](args)
		os.Exit(ExitProtocol) // a player that returned: not reached
	}
}

// ParseHidden reads a first argument made by HiddenArg at any protocol.
// Protocol 1 put no number after the name.
func ParseHidden(arg string) (name string, protocol int, ok bool) {
	rest, ok := strings.CutPrefix(arg, hiddenPrefix)
	if !ok {
		return "", 0, false
	}
	name, num, ok := strings.Cut(rest, "__")
	if !ok || name == "" {
		return "", 0, false
	}
	if num == "" {
		return name, 1, true
	}
	p, err := strconv.Atoi(num)
	if err != nil || p < 2 || strconv.Itoa(p) != num {
		return "", 0, false
	}
	return name, p, true
}

// CheckProtocol returns an error naming both protocols, and this binary's
// build version, when args (os.Args of a hidden mode) asks for another
// protocol than this binary's.
func CheckProtocol(args []string) error {
	if len(args) < 2 {
		return fmt.Errorf("no hidden mode argument")
	}
	name, p, ok := ParseHidden(args[1])
	if !ok {
		return fmt.Errorf("%q is no hidden mode argument", args[1])
	}
	if p == Protocol {
		return nil
	}
	version := "unknown version"
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		version = bi.Main.Version
	}
	return fmt.Errorf("the %s was started for protocol %d, but this session-starter (%s) speaks protocol %d: "+
		"the starter and this binary are of different versions", name, p, version, Protocol)
}
