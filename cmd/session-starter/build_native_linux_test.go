//go:build !portable

package main

import (
	"testing"

	"github.com/session-starter/session-starter/internal/sys"
)

// portable is false: the tests run the Linux build, with pidfds, the
// subreaper and cgroups.
const portable = false

// buildFlags are added to every go build of the tests.
var buildFlags []string

// productPath is where TestMain builds the product that binary runs.
func productPath(binary string) string { return binary }

// installLauncher has nothing to install: binary is the product.
func installLauncher(string) error { return nil }

// asLauncher reports that this test binary is not the portable launcher.
func asLauncher() bool { return false }

// needsSubreaper lets a test that needs the subreaper run.
func needsSubreaper(*testing.T) {}

// needsCgroup lets a test that needs a session cgroup run.
func needsCgroup(*testing.T) {}

// rawGuard reports whether the product's guard is the raw child of the
// starter: where the kernel signals a group through a pidfd (Linux 6.9).
func rawGuard() bool { return sys.CanSignalGroup() }
