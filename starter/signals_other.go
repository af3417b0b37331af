//go:build !darwin && !freebsd && !linux

package starter

import (
	"os"
	"syscall"
)

// diesOfStop reports false: no stop signal here makes this process die
// of it after the end.
func diesOfStop(syscall.Signal) bool { return false }

// CatchStops returns nil: here a session notifies its stop signals
// itself, or has none.
func CatchStops() chan os.Signal { return nil }
