//go:build !linux && !darwin && !freebsd

package main

import (
	"fmt"
	"io"

	"github.com/session-starter/session-starter/internal/wire"
	"github.com/session-starter/session-starter/starter"
)

// reclaim is --reclaim where no ledger is kept (Windows, whose job object
// kills a session's processes when its last handle closes): one clear
// line, exit 125, nothing touched.
func reclaim(_ *invocation, _, stderr io.Writer) starter.Verdict {
	fmt.Fprintln(stderr, "session-starter: --reclaim: no ledger of sessions is kept here (a session's job object ends its processes when its last handle closes); nothing was looked at")
	return starter.Verdict{Code: wire.ExitContainment}
}
