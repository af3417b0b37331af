//go:build darwin || freebsd

package sys

import (
	"os/signal"
	"syscall"
)

// SignalIgnored reports whether sig is ignored in this process. Here it
// is signal.Ignored, which sees an inherited ignore of SIGHUP and SIGINT
// but never of SIGTSTP, SIGTTIN and SIGTTOU: the Go runtime does not read
// their disposition at start.
func SignalIgnored(sig syscall.Signal) bool { return signal.Ignored(sig) }
