package guard

import (
	"os"
	"syscall"

	"github.com/session-starter/session-starter/internal/cgroup"
	"github.com/session-starter/session-starter/internal/end"
	"github.com/session-starter/session-starter/internal/sys"
	"github.com/session-starter/session-starter/internal/wire"
)

// handles returns the descriptors the guard gets in its gate and starter
// slots: the gate's pidfd and a pidfd of this process, the starter, a
// second channel besides the finish pipe. Without pidfd handles
// (sys.Pidless) both slots stay closed: the guard watches the starter by
// the finish pipe alone and the Engine by a watch it opens once its pin
// holds group E. release closes what handles opened.
func handles(spec Spec) (gate, starter uintptr, release func(), err error) {
	if sys.Pidless {
		return closedSlot, closedSlot, func() {}, nil
	}
	self, err := sys.PidfdOpen(os.Getpid())
	if err != nil {
		return 0, 0, nil, err
	}
	return uintptr(spec.GatePidfd), uintptr(self), func() { sys.Close(self) }, nil
}

// spawn forks and executes the guard in a process group of its own, in
// directory /, and returns its PID with a pidfd from the clone.
func spawn(exe string, argv, env []string, files []uintptr) (pid, pidfd int, err error) {
	pidfd = -1
	pid, err = syscall.ForkExec(exe, argv, &syscall.ProcAttr{
		Dir:   "/",
		Env:   env,
		Files: files,
		Sys:   &syscall.SysProcAttr{Setpgid: true, PidFD: &pidfd},
	})
	return pid, pidfd, err
}

// spawnPin forks and executes the pin into group pgid (setpgid in the
// child, before its exec), with life on 0 and null on 1-2, and returns its PID with a
// pidfd from the clone.
func spawnPin(pgid, life, null int) (pid, pidfd int, err error) {
	pidfd = -1
	pid, err = syscall.ForkExec("/proc/self/exe", []string{"session-starter", pinArg}, &syscall.ProcAttr{
		Dir:   "/",
		Env:   []string{"GODEBUG=containermaxprocs=0"},
		Files: []uintptr{uintptr(life), uintptr(null), uintptr(null)},
		Sys:   &syscall.SysProcAttr{Setpgid: true, Pgid: pgid, PidFD: &pidfd},
	})
	return pid, pidfd, err
}

// cgroupHolder checks the session cgroup's descriptors and returns it as
// a holder, or a refusal code.
func cgroupHolder(name string) (end.Holder, int) {
	if code := checkCgroup(wire.SlotCgroup, wire.SlotCgroupP, name); code != 0 {
		return nil, code
	}
	h, err := cgroup.NewHolder(wire.SlotCgroup)
	if err != nil {
		return nil, refusedNoCgroup
	}
	return h, 0
}

// removeCgroup removes the emptied session cgroup name through its
// parent's descriptor.
func removeCgroup(name string) { _ = cgroup.Remove(wire.SlotCgroupP, name) }

// checkCgroup checks the cgroup descriptors: two directories of a cgroup2
// file system, dir named name in parent, with a cgroup.kill.
func checkCgroup(dir, parent int, name string) int {
	if _, _, _, ok := cgroup.ParseName(name); !ok {
		return refusedSetup
	}
	for _, fd := range []int{dir, parent} {
		if fs, err := sys.Fstatfs(fd); err != nil || fs.Type != sys.CGROUP2_SUPER_MAGIC {
			return refusedNoCgroup
		}
	}
	in, err := sys.Fstat(dir)
	if err != nil {
		return refusedNoCgroup
	}
	if named, err := sys.Fstatat(parent, name, sys.AT_SYMLINK_NOFOLLOW); err != nil ||
		in.Ino != named.Ino || in.Dev != named.Dev {
		return refusedNoCgroup
	}
	if sys.Faccessat(dir, "cgroup.kill", sys.W_OK, 0) != nil {
		return refusedNoCgroup
	}
	return 0
}
