package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"strconv"
	"strings"
	"syscall"

	"github.com/session-starter/session-starter/internal/cgroup"
	"github.com/session-starter/session-starter/internal/sys"
	"github.com/session-starter/session-starter/internal/wire"
	"github.com/session-starter/session-starter/starter"
	"github.com/session-starter/session-starter/starter/launch"
)

// pidfsMagic is the f_type of pidfs (PID_FS_MAGIC, "PIDF"), where pidfds
// live from Linux 6.9 on.
const pidfsMagic = 0x50494446

// explainPlatform writes the Linux questions: whether a session cgroup
// can be made here (as --containment cgroup would try it) and what to do
// if not, and being PID 1. It returns why cgroup mode is impossible, or
// nil.
func explainPlatform(w io.Writer, mode string) error {
	_, _, cgErr := starter.ExplainContainment(launch.ContainCgroup)
	if cgErr == nil {
		fmt.Fprintln(w, "cgroup: yes")
	} else {
		fmt.Fprintf(w, "cgroup: no\n  %v\n", cgErr)
	}
	p, locErr := cgroup.Locate()
	if locErr == nil {
		where := "not managed by systemd"
		if p.ManagedBySystemd() {
			where = "managed by systemd and not delegated (auto does not write there)"
		}
		fmt.Fprintf(w, "  the starter's cgroup is %s in the cgroup2 mount at %s: %s\n", p.Own, p.Mount.Point, where)
	}
	if mode == wire.ModeGroup {
		fmt.Fprintln(w, "  in group mode a process that leaves the Engine's group and drops its mark, or runs as another user, outlives a SIGKILLed session-starter")
	}
	if os.Getpid() == 1 {
		fmt.Fprintln(w, "pid1: yes\n  session-starter is PID 1: it reaps every orphan, and --watch-parent needs --parent-pid")
	}
	return cgErr
}

// explainKernel writes the kernel's release and each feature a session
// uses, probed on this process; cgErr is why cgroup mode is impossible.
func explainKernel(w io.Writer, cgErr error) {
	p, locErr := cgroup.Locate()
	release, _ := os.ReadFile("/proc/sys/kernel/osrelease")
	fmt.Fprintf(w, "kernel: %s\n", strings.TrimSpace(string(release)))
	if sys.Pidless {
		fmt.Fprintln(w, "  the portable build uses none of these: it takes macOS's path")
	}
	yes := map[bool]string{true: "yes", false: "no"}
	fd, err := sys.PidfdOpen(os.Getpid())
	pidfd := err == nil
	if pidfd {
		defer sys.Close(fd)
	}
	fmt.Fprintf(w, "  pidfd_open (Linux 5.3, needed): %s\n", yes[pidfd])
	// Peek on a pidfd of this process itself: ECHILD (not our child) once
	// waitid knows P_PIDFD, EINVAL before.
	_, _, err = sys.Peek(fd)
	fmt.Fprintf(w, "  waitid P_PIDFD (Linux 5.4, needed): %s\n", yes[pidfd && errors.Is(err, syscall.ECHILD)])
	// The root cgroup has no cgroup.kill; a session cgroup made has a
	// writable one, or cgroup mode would be impossible.
	kill := fmt.Sprintf("unknown (%v)", locErr)
	if cgErr == nil {
		kill = "yes"
	} else if locErr == nil {
		_, err := os.Stat(path.Join(p.Dir, "cgroup.kill"))
		kill = yes[err == nil]
		if err != nil && p.Own == "/" {
			kill = "unknown (the root cgroup has none, and no session cgroup could be made)"
		}
	}
	fmt.Fprintf(w, "  cgroup.kill (Linux 5.14, for cgroup mode): %s\n", kill)
	fmt.Fprintf(w, "  PIDFD_SIGNAL_PROCESS_GROUP (Linux 6.9, the group signalled through a pidfd): %s\n", yes[sys.GroupSignalSupported()])
	_, _, err = sys.PidfdCgroupID(fd)
	fmt.Fprintf(w, "  PIDFD_GET_INFO (Linux 6.13, --grace's stop signal to the whole cgroup): %s\n", yes[pidfd && err == nil])
	st, err := sys.Fstatfs(fd)
	fmt.Fprintf(w, "  pidfs (Linux 6.9, identity tokens of the ledger): %s\n", yes[pidfd && err == nil && uint64(st.Type) == pidfsMagic])
}

// parentOf reads the parent's command name, executable and arguments
// from /proc; what cannot be read stays empty.
func parentOf(pid int) parent {
	dir := "/proc/" + strconv.Itoa(pid) + "/"
	var p parent
	if b, err := os.ReadFile(dir + "comm"); err == nil {
		p.comm = strings.TrimSuffix(string(b), "\n")
	}
	p.exe, _ = os.Readlink(dir + "exe")
	if b, err := os.ReadFile(dir + "cmdline"); err == nil {
		for a := range bytes.SplitSeq(bytes.TrimSuffix(b, []byte{0}), []byte{0}) {
			p.argv = append(p.argv, string(a))
		}
	}
	return p
}
