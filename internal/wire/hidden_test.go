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
