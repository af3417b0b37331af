package starter

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// children lists this process's children from
// /proc/self/task/*/children (every thread's, since a child belongs to the
// thread that forked it, and adopted orphans to the main thread).
func children() []int {
	files, _ := filepath.Glob("/proc/self/task/*/children")
	var out []int
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		for _, field := range strings.Fields(string(b)) {
			if pid, err := strconv.Atoi(field); err == nil {
				out = append(out, pid)
			}
		}
	}
	return out
}

// reapAdopted reaps every child that has exited, except the managed ones
// (the Engine, whose zombie pins its group, and the guard), each by its
// PID. It never waits on P_ALL or -1: that could take the Engine's status,
// and with WNOWAIT the kernel would report the Engine's zombie again and
// again and never the others (LINUX-FACTS.md §8). It returns how many it
// reaped.
func reapAdopted(managed ...int) int {
	n := 0
	for _, pid := range children() {
		if slices.Contains(managed, pid) {
			continue
		}
		var info unix.Siginfo
		for {
			err := unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOHANG, nil)
			if errors.Is(err, unix.EINTR) {
				continue
			}
			if err == nil && info.Signo != 0 {
				n++
			}
			break
		}
	}
	return n
}
