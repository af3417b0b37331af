package cgroup

import (
	"slices"
	"testing"
)

// TestOnV1FindsTheControllersBoundToACgroupV1Hierarchy: a hybrid host's
// /proc/self/cgroup, with memory, pids and cpu on v1 (cpu shares its
// hierarchy with cpuacct) and only the 0:: line for cgroup v2.
func TestOnV1FindsTheControllersBoundToACgroupV1Hierarchy(t *testing.T) {
	hybrid := []byte("9:name=systemd:/\n8:pids:/\n4:memory:/x/y\n2:cpu,cpuacct:/\n1:hugetlb:/\n0::/\n")
	pure := []byte("0::/user.slice/user-1000.slice/session-2.scope\n")
	for _, tt := range []struct {
		b         []byte
		want, got []string
	}{
		{hybrid, []string{"memory", "pids", "cpu"}, []string{"memory", "pids", "cpu"}},
		{hybrid, []string{"cpuacct", "io"}, []string{"cpuacct"}},
		{hybrid, []string{"systemd", "name=systemd"}, []string{"name=systemd"}},
		{pure, []string{"memory", "pids", "cpu"}, nil},
		{[]byte(""), []string{"memory"}, nil},
	} {
		if got := onV1(tt.b, tt.want); !slices.Equal(got, tt.got) {
			t.Errorf("onV1(%q, %q) = %q, want %q", tt.b, tt.want, got, tt.got)
		}
	}
}
