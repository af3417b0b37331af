package cgroup

import (
	"slices"
	"strings"
)

// onV1 lists, in want's order, the controllers of want that /proc/self/cgroup (b) shows
// bound to a cgroup v1 hierarchy: a line "ID:LIST:PATH" with an ID other
// than 0 and want's name in its comma-separated LIST. A controller is on
// one version at a time, so cgroup v2 can offer none of these here.
func onV1(b []byte, want []string) []string {
	var v1 []string
	for line := range strings.SplitSeq(string(b), "\n") {
		if f := strings.SplitN(line, ":", 3); len(f) == 3 && f[0] != "0" {
			v1 = append(v1, strings.Split(f[1], ",")...)
		}
	}
	return slices.DeleteFunc(slices.Clone(want), func(c string) bool { return !slices.Contains(v1, c) })
}
