package guard

import (
	"os"

	"github.com/session-starter/session-starter/internal/cgroup"
	"github.com/session-starter/session-starter/internal/end"
	"github.com/session-starter/session-starter/internal/sys"
	"github.com/session-starter/session-starter/internal/wire"
)

// handles returns the descriptors the guard gets in its gate and starter
// slots: the gate's pidfd and a pidfd of this process, the starter, a
// second channel besides the finish pipe. Without pidfd handles
// (sys.Pidless) both slots stay closed (-1): the guard watches the starter
// by the finish pipe alone and the Engine by a watch it opens once its pin
// holds group E. release closes what handles opened.
func handles(spec Spec) (gate, starter int, release func(), err error) {
	if sys.Pidless {
		return -1, -1, func() {}, nil
	}
	self, err := sys.PidfdOpen(os.Getpid())
	if err != nil {
		return 0, 0, nil, err
	}
	return spec.GatePidfd, self, func() { sys.Close(self) }, nil
}

// selfExe is this binary, which the pin executes.
func selfExe() (string, error) { return "/proc/self/exe", nil }

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
