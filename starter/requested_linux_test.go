package starter

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// The requested form end to end (a Go Engine built from testdata, with
// and without an installed session-starter, its init functions counted)
// is tested in cmd/session-starter/sdk_linux_test.go.

func TestContainIfRequestedWithoutTheVariableReturns(t *testing.T) {
	if _, ok := os.LookupEnv(RequestEnv); ok {
		t.Skipf("%s is set in the test's environment", RequestEnv)
	}
	ContainIfRequested()
}

// TestContainIfRequestedRemovesAnotherValue: only "1" asks for
// containment; another value must not reach this program's children.
func TestContainIfRequestedRemovesAnotherValue(t *testing.T) {
	for _, v := range []string{"", "0", "yes", "1 "} {
		t.Setenv(RequestEnv, v)
		ContainIfRequested()
		if got, ok := os.LookupEnv(RequestEnv); ok {
			t.Fatalf("after ContainIfRequested() with %s=%q the variable is %q, want it removed", RequestEnv, v, got)
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

// BenchmarkContainIfRequestedWithoutTheVariable is the cost of the call
// for every Go Engine that is not asked to contain itself.
func BenchmarkContainIfRequestedWithoutTheVariable(b *testing.B) {
	if _, ok := os.LookupEnv(RequestEnv); ok {
		b.Skipf("%s is set in the benchmark's environment", RequestEnv)
	}
	for b.Loop() {
		ContainIfRequested()
	}
}
