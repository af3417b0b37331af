//go:build !linux || portable

package main

import (
	"fmt"
	"io"

	"github.com/session-starter/session-starter/internal/wire"
	"github.com/session-starter/session-starter/starter"
)

// endReleased is --end-released where no marked process can be verified
// (macOS, FreeBSD, Windows, the portable build): one clear line, exit
// 125, nothing touched. There the enclosing session ends what a call
// released.
func endReleased(_ *invocation, _, stderr io.Writer) starter.Verdict {
	fmt.Fprintln(stderr, "session-starter: --end-released: Linux only (the processes are found by their mark and held by pidfds); the enclosing session ends what the call released; nothing was looked at")
	return starter.Verdict{Code: wire.ExitContainment}
}
