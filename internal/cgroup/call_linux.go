package cgroup

import (
	"errors"
	"os"
	"path"
	"syscall"

	"github.com/session-starter/session-starter/internal/sys"
)

// InSession returns this process's place when its own cgroup is a
// session cgroup (its name is one [Name] makes): a session in cgroup
// mode, whose Engine this process is.
func InSession() (Place, bool) {
	p, err := Locate()
	if err != nil {
		return Place{}, false
	}
	if _, _, _, ok := ParseName(path.Base(p.Dir)); !ok {
		return Place{}, false
	}
	return p, true
}

// Call is a cgroup of one contained call, made below the session cgroup
// its caller is in: cgroup.kill of the session cgroup reaches it, and the
// session's removal removes it (see [Remove]).
type Call struct {
	// Name is its directory's name in the session cgroup; Path the cgroup
	// as /proc/PID/cgroup shows it.
	Name, Path      string
	ParentFD, DirFD int
	removed         bool
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
	return &Call{Name: name, Path: path.Join(p.Own, name), ParentFD: parent, DirFD: dir}, nil
}

// Remove removes the call cgroup once it is empty, with the empty
// cgroups below it; a cgroup that is gone already is no error.
func (c *Call) Remove() error {
	if c.removed {
		return nil
	}
	err := Remove(c.ParentFD, c.Name)
	if err == nil || errors.Is(err, syscall.ENOENT) {
		c.removed = true
		return nil
	}
	return err
}

// Close releases the call cgroup's descriptors; it does not remove it.
func (c *Call) Close() {
	for _, fd := range []*int{&c.DirFD, &c.ParentFD} {
		if *fd >= 0 {
			sys.Close(*fd)
			*fd = -1
		}
	}
}
