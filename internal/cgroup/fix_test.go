package cgroup

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"
)

// TestFixNamesWhatMakesCgroupModePossible: a kernel without cgroup.kill
// needs 5.14, a build or platform without cgroups says so, and anything
// else (a read-only mount, a cgroup it may not write) names the
// delegation.
func TestFixNamesWhatMakesCgroupModePossible(t *testing.T) {
	unsupported := "cgroups are Linux's"
	if runtime.GOOS == "linux" {
		unsupported = "without -tags portable"
	}
	for _, tt := range []struct {
		why  error
		want string
	}{
		{fmt.Errorf("cgroup: /x has %w: %w", ErrNoKill, errors.New("permission denied")), "Linux 5.14"},
		{fmt.Errorf("not in the portable build: %w", errors.ErrUnsupported), unsupported},
		{errors.New("cgroup: the cgroup2 mount at /sys/fs/cgroup is read-only"), "systemd-run --user --scope -p Delegate=yes"},
		{errors.New("mkdir /sys/fs/cgroup/x: permission denied"), "as root, or in a cgroup delegated to its user"},
	} {
		if got := Fix(tt.why); !strings.Contains(got, tt.want) {
			t.Errorf("Fix(%v) = %q, want it to say %q", tt.why, got, tt.want)
		}
	}
}
