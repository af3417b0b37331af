//go:build darwin || freebsd || linux || windows

package starter

import (
	"slices"
	"testing"

	"github.com/session-starter/session-starter/internal/mark"
	"github.com/session-starter/session-starter/internal/sys"
	"github.com/session-starter/session-starter/starter/launch"
)

// TestTheEngineEnvironmentDropsTheRequestAndCarriesTheMark: the Engine
// gets the launcher's environment without launch.RequestEnv, with the
// session's id in the mark unless NoMark, and the launcher's copy is
// left as it was.
func TestTheEngineEnvironmentDropsTheRequestAndCarriesTheMark(t *testing.T) {
	launcher := []string{"A=1", launch.RequestEnv + "=x", "B=2"}
	before := slices.Clone(launcher)
	env, id, err := engineEnv(launcher, false)
	if err != nil {
		t.Fatal(err)
	}
	if id == nil {
		t.Fatal("engineEnv(..., noMark=false) gave no id")
	}
	if got, _ := sys.LookupEnv(env, mark.Var); !mark.Carries(got, *id) {
		t.Errorf("%s = %q, want it to carry %s", mark.Var, got, id)
	}
	if _, ok := sys.LookupEnv(env, launch.RequestEnv); ok {
		t.Errorf("the Engine's environment %q keeps %s", env, launch.RequestEnv)
	}
	if !slices.Equal(launcher, before) {
		t.Errorf("the launcher's environment became %q, want %q", launcher, before)
	}
	env, id, err = engineEnv(launcher, true)
	if err != nil || id != nil || !slices.Equal(env, []string{"A=1", "B=2"}) {
		t.Errorf("engineEnv(%q, noMark=true) = %q, %v, %v; want [A=1 B=2] and no id", launcher, env, id, err)
	}
}
