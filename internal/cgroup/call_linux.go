package cgroup

import (
	"fmt"
	"os"
	"path"
	"slices"

	"github.com/session-starter/session-starter/internal/sys"
)

// InSession returns the place of the session cgroup this process is in,
// when its own cgroup is a leaf of one (its parent's name is one [Name]
// makes): the Engine's leaf ([EngineLeaf]), or a contained call's
// cgroup — a session in cgroup mode. The place's Own and Dir are the
// session cgroup's, where calls' cgroups are made.
func InSession() (Place, bool) {
	p, err := Locate()
	if err != nil {
		return Place{}, false
	}
	return sessionOf(p)
}

// sessionOf is the session cgroup whose leaf p is, if it is one's.
func sessionOf(p Place) (Place, bool) {
	dir := path.Dir(p.Dir)
	if _, _, _, ok := ParseName(path.Base(dir)); !ok || dir == p.Dir {
		return Place{}, false
	}
	return Place{Mount: p.Mount, Own: path.Dir(p.Own), Dir: dir}, true
}

// Call is a cgroup of one contained call, made in the session cgroup its
// caller is in, beside the Engine's leaf: cgroup.kill of the session
// cgroup reaches it, its limits count within the session's, and the
// session's removal removes it (see [Remove]).
type Call struct{ Handle }

// counted are the controllers whose counters a call's usage reads
// (memory.peak, memory.events, pids.peak, pids.events). Enabling them
// costs the call nothing it would notice; the cpu controller, which would
// change how CPU time is shared between the Engine and its calls (each
// cgroup a weight of its own), is enabled only for a CPU limit.
var counted = []string{"memory", "pids"}

// ForCalls enables for the cgroups made in the session cgroup p the
// controllers need — a limit's; one the session cgroup does not have
// fails with [ErrNotDelegated] — and those of memory and pids it has,
// for the calls' counters. The session cgroup holds no process (the
// Engine lives in its leaf), so the "no internal processes" rule allows
// it; a session cgroup that does hold one fails with [ErrShared].
// Nothing is turned off again: the session's removal ends it all.
func ForCalls(p Place, need []string) error {
	avail, err := os.ReadFile(path.Join(p.Dir, "cgroup.controllers"))
	if err != nil {
		return fmt.Errorf("cgroup: %w", err)
	}
	want := slices.Clone(need)
	for _, c := range counted {
		if slices.Contains(words(avail), c) && !slices.Contains(want, c) {
			want = append(want, c)
		}
	}
	if len(want) == 0 {
		return nil
	}
	// self unset: nothing moves, and no supervisor leaf is returned.
	_, err = Enable(p, want, false)
	if err != nil && len(need) < len(want) {
		// The counters are not worth a failure: the limits alone.
		_, err = Enable(p, need, false)
	}
	return err
}

// MakeCall makes the call cgroup name in p (a session cgroup, see
// [InSession]) and opens it. A name taken already is an error: names are
// the caller's to make unique.
func MakeCall(p Place, name string) (*Call, error) {
	parent, err := openDir(sys.AT_FDCWD, p.Dir)
	if err != nil {
		return nil, err
	}
	if err := sys.Mkdirat(parent, name, 0o755); err != nil {
		sys.Close(parent)
		return nil, &os.PathError{Op: "mkdir", Path: path.Join(p.Dir, name), Err: err}
	}
	dir, err := openDir(parent, name)
	if err != nil {
		_ = sys.Unlinkat(parent, name, sys.AT_REMOVEDIR)
		sys.Close(parent)
		return nil, err
	}
	return &Call{Handle{Name: name, Path: path.Join(p.Own, name), ParentFD: parent, DirFD: dir}}, nil
}
