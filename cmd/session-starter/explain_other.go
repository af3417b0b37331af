//go:build !linux

package main

import (
	"fmt"
	"io"
	"runtime"

	"github.com/session-starter/session-starter/internal/wire"
)

// explainPlatform writes what there is to say here: no cgroups, and the
// mode's meaning.
func explainPlatform(w io.Writer, mode string) error {
	fmt.Fprintf(w, "cgroup: no\n  cgroups are Linux's; on %s a session is held by its %s\n", runtime.GOOS, map[string]string{
		wire.ModeGroup:  "process group",
		wire.ModeReaper: "process group, with session-starter the reaper of the Engine's tree",
		"job":           "kill-on-close job object",
	}[mode])
	return nil
}

// explainKernel has nothing to say: the features it names are Linux's.
func explainKernel(io.Writer, error) {}

// parentOf knows nothing of the parent here.
func parentOf(int) parent { return parent{} }
