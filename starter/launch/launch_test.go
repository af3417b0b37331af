package launch

import (
	"strings"
	"testing"
	"time"
)

func TestAckLineHasItsKeysInOrder(t *testing.T) {
	if got, want := string(Ack(1234, "group")), `{"session_containment":1,"pid":1234,"mode":"group"}`+"\n"; got != want {
		t.Fatalf("Ack = %q, want %q", got, want)
	}
}

func TestTheLaunchersWaitCoversTheWholeEnd(t *testing.T) {
	for _, tt := range []struct {
		flags []string
		want  time.Duration
	}{
		{nil, DefaultWaitDelay},
		{[]string{"--grace", "20s", "--kill-budget=3s"}, 20*time.Second + 3*time.Second + EndSlack + 5*time.Second},
		{[]string{"--grace=7"}, 7*time.Second + DefaultKillBudget + EndSlack + 5*time.Second},
		{[]string{"--kill-budget", "nonsense"}, DefaultWaitDelay},
		// Read as session-starter reads them: a "d" suffix, an exponent.
		{[]string{"--grace", "0.5d"}, 12*time.Hour + DefaultKillBudget + EndSlack + 5*time.Second},
		{[]string{"--kill-budget=1e2"}, 100*time.Second + EndSlack + 5*time.Second},
	} {
		if got := waitDelayFor(tt.flags); got != tt.want {
			t.Errorf("waitDelayFor(%q) = %v, want %v", tt.flags, got, tt.want)
		}
	}
}

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
