package launch

import (
	"strings"
	"testing"
)

// TestParseContainmentReadsTheThreeModesAndRefusesOthers: one type of
// containment serves the launcher's options and session-starter's flag.
func TestParseContainmentReadsTheThreeModesAndRefusesOthers(t *testing.T) {
	for _, c := range []Containment{ContainAuto, ContainGroup, ContainCgroup} {
		if got, err := ParseContainment(string(c)); err != nil || got != c {
			t.Errorf("ParseContainment(%q) = %q, %v", c, got, err)
		}
	}
	for _, s := range []string{"", "Group", "jail", "cgroup "} {
		if got, err := ParseContainment(s); err == nil || !strings.Contains(err.Error(), "want auto, group or cgroup") {
			t.Errorf("ParseContainment(%q) = %q, %v; want an error naming the modes", s, got, err)
		}
	}
}
