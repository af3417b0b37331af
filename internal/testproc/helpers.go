package testproc

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"sync"
	"testing"
)

// HelperVar names, in the environment of a run of a test binary, the
// helper role it plays instead of running its tests: one registry, one
// variable, for every package whose tests start the test binary again as
// a child process (an Engine, a launcher, a driver of fault trials).
const HelperVar = "SESSION_STARTER_TEST_HELPER"

var (
	helpers = map[string]func(args []string) int{}
	used    sync.Map
)

// Register adds the role name, which the test binary plays in a child
// process by running fn with the child's arguments and exiting with its
// result. A name registered twice panics. Register from init functions.
func Register(name string, fn func(args []string) int) {
	if _, dup := helpers[name]; dup {
		panic("testproc: helper registered twice: " + name)
	}
	helpers[name] = fn
}

// RunHelper comes first in TestMain: in a child started to play a role
// (HelperVar set) it plays it and exits; otherwise it returns. An unknown
// role exits 2.
func RunHelper() {
	name := os.Getenv(HelperVar)
	if name == "" {
		return
	}
	fn, ok := helpers[name]
	if !ok {
		fmt.Fprintf(os.Stderr, "unknown helper %q\n", name)
		os.Exit(2)
	}
	os.Exit(fn(os.Args[1:]))
}

// HelperEnv returns the environment entry that makes a run of this test
// binary play the role name, for a child started by other means than
// [HelperCommand]. It fails the test for a role never registered.
func HelperEnv(t testing.TB, name string) string {
	t.Helper()
	if helpers[name] == nil {
		t.Fatalf("no helper %q", name)
	}
	used.Store(name, true)
	return HelperVar + "=" + name
}

// HelperCommand returns a command that runs this test binary as the role
// name with args, in this process's environment with [HelperVar] set and
// GORACE=atexit_sleep_ms=0 (a race-built helper would linger a second at
// its exit). The caller bounds how long it runs.
func HelperCommand(t testing.TB, name string, args ...string) *exec.Cmd {
	t.Helper()
	env := HelperEnv(t, name)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, args...)
	cmd.Env = append(os.Environ(), env, "GORACE=atexit_sleep_ms=0")
	return cmd
}

// CheckHelpersUsed returns the exit code for TestMain to exit with, given
// the code of m.Run: it turns a passing full run (neither -run nor -skip
// given) into a failure when a registered role was never used, a helper
// that has gone stale.
func CheckHelpersUsed(code int) int {
	if code != 0 || flagSet("test.run") || flagSet("test.skip") {
		return code
	}
	var stale []string
	for name := range helpers {
		if _, ok := used.Load(name); !ok {
			stale = append(stale, name)
		}
	}
	if len(stale) == 0 {
		return code
	}
	slices.Sort(stale)
	fmt.Fprintf(os.Stderr, "helpers never used: %v\n", stale)
	return 1
}

func flagSet(name string) bool {
	f := flag.Lookup(name)
	return f != nil && f.Value.String() != ""
}
