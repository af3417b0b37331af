package proc

import (
	"fmt"
	"strconv"
	"strings"
)

// Children lists the children of pid, from /proc/PID/task/*/children (a
// child belongs to the thread that forked it). A process or thread that
// ends during the read had no children left to list; the result names
// numbers, which a caller must check (the parent, the start time) after
// opening a handle, before it acts on one.
func Children(pid int) ([]int, error) {
	tids, _, err := numbered(Root + "/" + strconv.Itoa(pid) + "/task")
	if err != nil {
		if gone(err) {
			return nil, nil
		}
		return nil, err
	}
	var out []int
	for _, tid := range tids {
		kids, err := ThreadChildren(pid, tid)
		if err != nil {
			if gone(err) {
				continue
			}
			return nil, err
		}
		out = append(out, kids...)
	}
	return out, nil
}

// ThreadChildren lists the children of the thread tid of pid, from
// /proc/PID/task/TID/children, read whole however long it is (a list cut
// at a buffer's end would end in a number cut short: another PID). An
// error is the read's, the thread's end included.
func ThreadChildren(pid, tid int) ([]int, error) {
	var buf [4096]byte
	path := Root + "/" + strconv.Itoa(pid) + "/task/" + strconv.Itoa(tid) + "/children"
	b, err := readFile(path, buf[:], true)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	var out []int
	for f := range strings.FieldsSeq(string(b)) {
		if c, err := strconv.Atoi(f); err == nil {
			out = append(out, c)
		}
	}
	return out, nil
}
