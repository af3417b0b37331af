package contain

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/session-starter/session-starter/internal/wire"
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

// TestRequestedOptionsPreferAnInstalledStarterOfThisProtocol: an
// installed session-starter that answers the probe for this protocol
// plays gate and guard. One that answers otherwise (here /bin/echo, which
// echoes the probe's arguments), says nothing (/bin/true), refuses
// (/bin/false, as one of another protocol exits 125 and one older than the
// probe 127) or cannot be executed through its descriptor (a script, as
// the porch would execute it) is passed over, and this binary plays them.
func TestRequestedOptionsPreferAnInstalledStarterOfThisProtocol(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name, from, script string
		used               bool
	}{
		{name: "this protocol", from: self, used: true},
		{name: "another answer", from: "/bin/echo"},
		{name: "no answer", from: "/bin/true"},
		{name: "refuses", from: "/bin/false"},
		{name: "a script", script: fmt.Sprintf("#!/bin/sh\necho 'session-starter guard protocol %d'\n", wire.Protocol)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			installed := filepath.Join(dir, "session-starter")
			content := []byte(tt.script)
			if tt.from != "" {
				if content, err = os.ReadFile(tt.from); err != nil {
					t.Fatal(err)
				}
			}
			if err := os.WriteFile(installed, content, 0o755); err != nil {
				t.Fatal(err)
			}
			t.Setenv("PATH", dir)
			o, err := requestedOptions([]string{"engine"})
			if err != nil {
				t.Fatal(err)
			}
			want := ""
			if tt.used {
				want = installed
			}
			if o.Exe != want {
				t.Fatalf("requestedOptions().Exe = %q, want %q", o.Exe, want)
			}
		})
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
