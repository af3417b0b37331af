package cgroup

import (
	"bytes"
	"slices"
)

// onV1 lists, in want's order, the controllers of want that /proc/self/cgroup (b) shows
// bound to a cgroup v1 hierarchy: a line "ID:LIST:PATH" with an ID other
// than 0 and want's name in its comma-separated LIST. A controller is on
// one version at a time, so cgroup v2 can offer none of these here.
func onV1(b []byte, want []string) []string {
	var v1 []string
	for line := range bytes.SplitSeq(b, []byte("\n")) {
		id, rest, ok := bytes.Cut(line, []byte(":"))
		if !ok || string(id) == "0" {
			continue
		}
		if list, _, ok := bytes.Cut(rest, []byte(":")); ok {
			for c := range bytes.SplitSeq(list, []byte(",")) {
				v1 = append(v1, string(c))
			}
		}
	}
	return slices.DeleteFunc(slices.Clone(want), func(c string) bool { return !slices.Contains(v1, c) })
}
