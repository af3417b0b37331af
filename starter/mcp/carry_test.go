package mcp

import (
	"slices"
	"testing"
)

func TestAnExplicitEnvGetsOnlyTheCarriedVariablesItDoesNotName(t *testing.T) {
	env := []string{"PATH=/bin", "SESSION_STARTER_SESSION="}
	from := []string{"XDG_RUNTIME_DIR=/run/user/1", "SESSION_STARTER_SESSION=outer", "OTHER=1", "SESSION_STARTER_LEDGER_DIRX=no"}
	got := carryEnv(env, from)
	want := []string{"PATH=/bin", "SESSION_STARTER_SESSION=", "XDG_RUNTIME_DIR=/run/user/1"}
	if !slices.Equal(got, want) {
		t.Errorf("carryEnv = %q, want %q", got, want)
	}
	if !slices.Equal(env, []string{"PATH=/bin", "SESSION_STARTER_SESSION="}) {
		t.Errorf("carryEnv changed its argument: %q", env)
	}
}
