package contain

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/session-starter/session-starter/starter/launch"
)

// The requested form end to end (a Go Engine built from testdata, with
// and without an installed session-starter, its init functions counted)
// is tested in cmd/session-starter/sdk_linux_test.go.

func TestIfRequestedWithoutTheVariableReturns(t *testing.T) {
	if _, ok := os.LookupEnv(launch.RequestEnv); ok {
		t.Skipf("%s is set in the test's environment", launch.RequestEnv)
	}
	IfRequested()
}

// TestIfRequestedRemovesAnotherValue: only "1" asks for
// containment; another value must not reach this program's children.
func TestIfRequestedRemovesAnotherValue(t *testing.T) {
	for _, v := range []string{"", "0", "yes", "1 "} {
		t.Setenv(launch.RequestEnv, v)
		IfRequested()
		if got, ok := os.LookupEnv(launch.RequestEnv); ok {
			t.Fatalf("after IfRequested() with %s=%q the variable is %q, want it removed", launch.RequestEnv, v, got)
		}
	}
}

func TestRequestedOptionsKeepArgv0AndRunThisBinary(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, argv0 := range []string{"engine", "/some/where/engine", "-engine", "sh"} {
		o, err := requestedOptions([]string{argv0, "serve", "--stdio"})
		if err != nil {
			t.Fatal(err)
		}
		if want := []string{argv0, "serve", "--stdio"}; !slices.Equal(o.Argv, want) || o.Path != self {
			t.Errorf("requestedOptions(%q …) = Argv %q, Path %q; want Argv %q and Path %q", argv0, o.Argv, o.Path, want, self)
		}
	}
}

func TestRequestedOptionsPreferAnInstalledStarter(t *testing.T) {
	dir := t.TempDir()
	installed := filepath.Join(dir, "session-starter")
	if err := os.WriteFile(installed, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir)
	o, err := requestedOptions([]string{"engine"})
	if err != nil {
		t.Fatal(err)
	}
	if o.Exe != installed {
		t.Fatalf("requestedOptions().Exe = %q, want %q", o.Exe, installed)
	}
}

// BenchmarkIfRequestedWithoutTheVariable is the cost of the call
// for every Go Engine that is not asked to contain itself.
func BenchmarkIfRequestedWithoutTheVariable(b *testing.B) {
	if _, ok := os.LookupEnv(launch.RequestEnv); ok {
		b.Skipf("%s is set in the benchmark's environment", launch.RequestEnv)
	}
	for b.Loop() {
		IfRequested()
	}
}
