package proc

import (
	"errors"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// Children lists the children of pid, from /proc/PID/task/*/children (a
// child belongs to the thread that forked it). A process or thread that
// ends during the read had no children left to list; the result names
// numbers, which a caller must check (the parent, the start time) after
// opening a handle, before it acts on one.
func Children(pid int) ([]int, error) {
	dir := Root + "/" + strconv.Itoa(pid) + "/task"
	tasks, err := os.ReadDir(dir)
	if err != nil {
		if gone(err) {
			return nil, nil
		}
		return nil, err
	}
	var out []int
	var buf [4096]byte
	for _, t := range tasks {
		b, err := readSmall(dir+"/"+t.Name()+"/children", buf[:])
		if err != nil {
			if gone(err) || errors.Is(err, syscall.ESRCH) {
				continue
			}
			return nil, err
		}
		for f := range strings.FieldsSeq(string(b)) {
			if c, err := strconv.Atoi(f); err == nil {
				out = append(out, c)
			}
		}
	}
	return out, nil
}
