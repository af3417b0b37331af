package starter

import (
	"errors"
	"os"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// children lists this process's children from
// /proc/self/task/*/children (every thread's, since a child belongs to the
// thread that forked it, and adopted orphans to the main thread). It reads
// with raw calls into one buffer: it runs on every SIGCHLD and in every
// sweep round.
func children() []int {
	tasks, err := os.Open("/proc/self/task")
	if err != nil {
		return nil
	}
	names, _ := tasks.Readdirnames(-1)
	tasks.Close()
	var out []int
	buf := make([]byte, 4096)
	for _, tid := range names {
		fd, err := unix.Open("/proc/self/task/"+tid+"/children", unix.O_RDONLY|unix.O_CLOEXEC, 0)
		if err != nil {
			continue
		}
		n := 0
		for {
			if n == len(buf) {
				buf = append(buf, make([]byte, len(buf))...)
			}
			m, err := unix.Read(fd, buf[n:])
			if errors.Is(err, unix.EINTR) {
				continue
			}
			if err != nil || m == 0 {
				break
			}
			n += m
		}
		unix.Close(fd)
		for field := range strings.FieldsSeq(string(buf[:n])) {
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
