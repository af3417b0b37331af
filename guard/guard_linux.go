package guard

import (
	"github.com/session-starter/session-starter/internal/cgroup"
	"github.com/session-starter/session-starter/internal/end"
	"github.com/session-starter/session-starter/internal/sys"
	"github.com/session-starter/session-starter/internal/wire"
)

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
