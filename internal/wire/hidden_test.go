package wire

import (
	"fmt"
	"strings"
	"testing"
)

func TestHiddenArgumentsCarryTheProtocolAndParseBack(t *testing.T) {
	for _, name := range []string{"gate", "guard", "pin"} {
		n, p, ok := ParseHidden(HiddenArg(name))
		if !ok || n != name || p != Protocol {
			t.Errorf("ParseHidden(HiddenArg(%q)) = %q, %d, %v", name, n, p, ok)
		}
	}
	for arg, want := range map[string]int{"__session-starter-gate__": 1, "__session-starter-guard__7": 7} {
		if _, p, ok := ParseHidden(arg); !ok || p != want {
			t.Errorf("ParseHidden(%q) = %d, %v; want protocol %d", arg, p, ok, want)
		}
	}
	for _, arg := range []string{"", "gate", "__session-starter-__2", "__session-starter-gate__02", "__session-starter-gate__1", "__session-starter-gate__x", "__session-starter-gate"} {
		if n, p, ok := ParseHidden(arg); ok {
			t.Errorf("ParseHidden(%q) = %q, %d, true; want not a hidden argument", arg, n, p)
		}
	}
}

func TestAHiddenModeOfAnotherProtocolIsRefusedNamingBoth(t *testing.T) {
	if err := CheckProtocol([]string{"x", HiddenArg("gate")}); err != nil {
		t.Fatalf("CheckProtocol(this protocol) = %v", err)
	}
	err := CheckProtocol([]string{"x", "__session-starter-guard__"})
	if err == nil || !strings.Contains(err.Error(), "protocol 1") || !strings.Contains(err.Error(), fmt.Sprintf("protocol %d", Protocol)) || !strings.Contains(err.Error(), "guard") {
		t.Fatalf("CheckProtocol(protocol 1) = %v, want both protocols and the mode named", err)
	}
}

// played is what a test player panics with, in place of never returning.
type played struct {
	name string
	args []string
}

func TestRunHiddenPlaysTheRegisteredModeOfAnyProtocolAndReturnsForOthers(t *testing.T) {
	t.Cleanup(func() { delete(players, "test-mode") })
	Play(func(args []string) { panic(played{"test-mode", args}) }, "test-mode")
	run := func(args ...string) (p *played) {
		defer func() {
			if r := recover(); r != nil {
				got := r.(played)
				p = &got
			}
		}()
		RunHidden(args)
		return nil
	}
	for _, arg := range []string{HiddenArg("test-mode"), "__session-starter-test-mode__", "__session-starter-test-mode__99"} {
		if p := run("bin", arg, "x"); p == nil || p.name != "test-mode" || len(p.args) != 3 || p.args[1] != arg {
			t.Errorf("RunHidden(bin %s x) played %+v; want test-mode with the whole args", arg, p)
		}
	}
	for _, args := range [][]string{nil, {"bin"}, {"bin", "test-mode"}, {"bin", HiddenArg("no-such-mode")}, {"bin", "--", HiddenArg("test-mode")}} {
		if p := run(args...); p != nil {
			t.Errorf("RunHidden(%q) played %+v; want a return", args, p)
		}
	}
}
