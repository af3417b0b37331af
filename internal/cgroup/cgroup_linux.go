package cgroup

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/session-starter/session-starter/internal/proc"
	"github.com/session-starter/session-starter/internal/sys"
)

// Place is this process's position in the cgroup2 hierarchy.
type Place struct {
	Mount Mount
	// Own is this process's cgroup as /proc/self/cgroup names it.
	Own string
	// Dir is Own's directory below the mount point.
	Dir string
}

// Locate finds the cgroup2 mount and this process's cgroup in it. It fails
// when there is no cgroup2 mount, when it is read-only, or when this
// process's cgroup lies outside what the mount shows.
func Locate() (Place, error) {
	mi, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return Place{}, fmt.Errorf("cgroup: %w", err)
	}
	m, err := parseMountinfo(mi)
	if err != nil {
		return Place{}, fmt.Errorf("cgroup: %w", err)
	}
	if m.ReadOnly {
		return Place{}, fmt.Errorf("cgroup: the cgroup2 mount at %s is read-only", m.Point)
	}
	cg, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return Place{}, fmt.Errorf("cgroup: %w", err)
	}
	own, ok := parseProcCgroup(cg)
	if !ok {
		return Place{}, errors.New("cgroup: no cgroup v2 entry (0::) in /proc/self/cgroup")
	}
	// A root of "/" is the whole hierarchy: own is then below it as it is.
	rel, ok := strings.CutPrefix(own, strings.TrimSuffix(m.Root, "/"))
	if !ok || (rel != "" && rel[0] != '/') {
		return Place{}, fmt.Errorf("cgroup: own cgroup %s is outside the mount's root %s", own, m.Root)
	}
	return Place{Mount: m, Own: own, Dir: path.Join(m.Point, rel)}, nil
}

// ManagedBySystemd reports whether systemd is the init system and this
// process's cgroup was not delegated to it (no trusted.delegate or
// user.delegate attribute): writing there would fight systemd.
func (p Place) ManagedBySystemd() bool {
	if _, err := os.Stat("/run/systemd/system"); err != nil {
		return false
	}
	for _, attr := range []string{"trusted.delegate", "user.delegate"} {
		var b [8]byte
		if n, err := sys.Getxattr(p.Dir, attr, b[:]); err == nil && string(b[:n]) == "1" {
			return false
		}
	}
	return true
}

// seq tells the sessions of one process apart.
var seq atomic.Uint64

// EngineLeaf is the name of the leaf cgroup of a session cgroup in
// which the Engine is born. The session cgroup itself holds no process,
// so that it may enable controllers for the cgroups below it — the
// Engine's leaf and the cgroups of its contained calls ([MakeCall]) —
// which cgroup v2's "no internal processes" rule forbids a cgroup that
// holds processes.
const EngineLeaf = "engine"

// Handle is a cgroup this process made, held open: a session's, or a
// contained call's.
type Handle struct {
	// Name is the directory's name in its parent; Path the cgroup as
	// /proc/PID/cgroup shows it.
	Name, Path string
	// ParentFD and DirFD are directory descriptors of the parent and of
	// the cgroup.
	ParentFD, DirFD int
	removed         bool
}

// Session is a session cgroup this process created.
type Session struct {
	Handle
	// Dir is the session cgroup's directory, absolute; ID the cgroup's
	// id (its inode number).
	Dir string
	ID  uint64
	// EngineFD is a directory descriptor of the Engine's leaf
	// ([EngineLeaf]), EnginePath the leaf as /proc/PID/cgroup shows it.
	EngineFD   int
	EnginePath string
}

// createTries bounds the attempts of Create: one fails only when the name
// is taken (by a starter of another PID namespace with the same PID and
// start time), or a cleaner of another session held or removed the fresh
// cgroup in the moment between mkdir and flock; a new name avoids both.
const createTries = 8

// Create cleans no leftovers (see [CleanLeftovers]) and makes a fresh
// session cgroup in p.Dir. It checks that p.Dir is a cgroup2 directory
// before it writes anything. A failure after the mkdir that is not a
// cleaner's doing (EMFILE at the cgroup's directory or its cgroup.events)
// removes the cgroup it made and is returned naming that error, never
// taken for a name taken.
//
// The session holds an exclusive flock on the cgroup's directory for as
// long as a descriptor of it is open — in the starter and in the guard,
// which inherits it: that, not the name alone, is what tells cleaners in
// other PID or time namespaces (where the name's PID and start time mean
// nothing) that the session lives.
func Create(p Place) (*Session, error) {
	st, err := proc.ReadStat(os.Getpid())
	if err != nil {
		return nil, fmt.Errorf("cgroup: %w", err)
	}
	parent, err := openDir(sys.AT_FDCWD, p.Dir)
	if err != nil {
		return nil, err
	}
	for range createTries {
		name := Name(os.Getpid(), st.StartTime, seq.Add(1))
		err := sys.Mkdirat(parent, name, 0o755)
		if errors.Is(err, syscall.EEXIST) {
			// A starter of another PID namespace with the same PID and
			// start time: step past its numbers.
			seq.Add(rand.Uint64N(1 << 16))
			continue
		}
		if err != nil {
			sys.Close(parent)
			return nil, &os.PathError{Op: "mkdir", Path: path.Join(p.Dir, name), Err: err}
		}
		dir, id, err := lockNew(parent, name)
		if errors.Is(err, errTaken) {
			continue
		}
		engine := -1
		if err == nil {
			engine, err = engineLeaf(parent, dir, p.Own)
		}
		if err != nil {
			sys.CloseFDs(&dir) // -1 where lockNew failed
			_ = Remove(parent, name)
			sys.Close(parent)
			return nil, fmt.Errorf("cgroup: new session cgroup in %s: %w", p.Dir, err)
		}
		own := path.Join(p.Own, name)
		return &Session{Handle: Handle{Name: name, Path: own, ParentFD: parent, DirFD: dir}, Dir: path.Join(p.Dir, name), ID: id,
			EngineFD: engine, EnginePath: path.Join(own, EngineLeaf)}, nil
	}
	sys.Close(parent)
	return nil, fmt.Errorf("cgroup: no session cgroup in %s after %d tries: each name was taken", p.Dir, createTries)
}

var errTaken = errors.New("cgroup: taken by a cleaner")

// engineLeaf makes the Engine's leaf in the fresh session cgroup dir
// (in parent, below own) and opens it, once the session cgroup is known
// to be a domain; the leaf is checked too.
func engineLeaf(parent, dir int, own string) (int, error) {
	if err := holdsProcesses(parent, dir, own); err != nil {
		return -1, err
	}
	if err := sys.Mkdirat(dir, EngineLeaf, 0o755); err != nil {
		return -1, fmt.Errorf("mkdir %s: %w", EngineLeaf, err)
	}
	engine, err := openDir(dir, EngineLeaf)
	if err != nil {
		return -1, err
	}
	if err := holdsProcesses(dir, engine, own); err != nil {
		sys.Close(engine)
		return -1, err
	}
	return engine, nil
}

// ErrNotDomain is wrapped by the error of [Create] when the new cgroup
// came out of a type that cannot hold a process ("domain invalid"): the
// starter's cgroup is part of a threaded subtree (it is threaded, or the
// root of one: threaded controllers, or threaded children, beside its
// processes). Joining such a cgroup fails with EOPNOTSUPP; Create removes
// it and says so instead.
var ErrNotDomain = errors.New("a cgroup made here cannot hold a process")

// holdsProcesses checks, by its cgroup.type, that the new cgroup dir is a
// domain, which processes can join. A kernel without the file (before
// Linux 4.14) has no threaded cgroups: every cgroup is a domain.
func holdsProcesses(parent, dir int, own string) error {
	typ, err := cgroupType(dir)
	if errors.Is(err, syscall.ENOENT) || (err == nil && typ == "domain") {
		return nil
	}
	if err != nil {
		return err
	}
	ptyp, err := cgroupType(parent)
	if err != nil {
		ptyp = "unknown: " + err.Error()
	}
	return fmt.Errorf("%w: it came out %q, below the starter's cgroup %s, which is %q (a threaded subtree)", ErrNotDomain, typ, own, ptyp)
}

// cgroupType reads cgroup.type of the cgroup dirfd names.
func cgroupType(dirfd int) (string, error) {
	b, err := readFile(dirfd, "cgroup.type")
	return strings.TrimSpace(string(b)), err
}

// lockNew opens and locks the fresh cgroup name, and checks that it is
// still the one in parent (a cleaner may have removed it in between).
// A failure closes the descriptor it opened.
func lockNew(parent int, name string) (dir int, id uint64, err error) {
	fd, err := openDir(parent, name)
	if errors.Is(err, syscall.ENOENT) {
		return -1, 0, errTaken
	}
	if err != nil {
		return -1, 0, err
	}
	defer func() {
		if err != nil {
			sys.Close(fd) // and with it the lock
		}
	}()
	if err := sys.Flock(fd, sys.LOCK_EX|sys.LOCK_NB); errors.Is(err, syscall.EWOULDBLOCK) {
		return -1, 0, errTaken
	} else if err != nil {
		return -1, 0, err
	}
	in, err := sys.Fstat(fd)
	if err != nil {
		return -1, 0, err
	}
	named, err := sys.Fstatat(parent, name, sys.AT_SYMLINK_NOFOLLOW)
	if err != nil && !errors.Is(err, syscall.ENOENT) {
		return -1, 0, err
	}
	if err != nil || named.Ino != in.Ino {
		return -1, 0, errTaken
	}
	if _, err := Populated(fd); errors.Is(err, syscall.ENODEV) {
		return -1, 0, errTaken // removed: its files answer ENODEV
	} else if err != nil {
		// Any other failure (EMFILE above all) is this process's, not a
		// cleaner's: Create removes the cgroup and says why.
		return -1, 0, fmt.Errorf("%s: %w", name, err)
	}
	return fd, in.Ino, nil
}

// openDir opens a directory of a cgroup2 file system, close-on-exec.
func openDir(at int, name string) (int, error) {
	fd, err := sys.OpenAt(at, name, sys.O_RDONLY|sys.O_DIRECTORY)
	if err != nil {
		return -1, err
	}
	fs, err := sys.Fstatfs(fd)
	if err != nil {
		sys.Close(fd)
		return -1, &os.PathError{Op: "statfs", Path: name, Err: err}
	}
	if fs.Type != sys.CGROUP2_SUPER_MAGIC {
		sys.Close(fd)
		return -1, fmt.Errorf("cgroup: %s is not on a cgroup2 file system", name)
	}
	return fd, nil
}

// OpenProcs opens the cgroup.procs of the Engine's leaf for writing,
// close-on-exec: the gate writes its own PID to it.
func (s *Session) OpenProcs() (int, error) {
	fd, err := sys.OpenAt(s.EngineFD, "cgroup.procs", sys.O_WRONLY)
	if err != nil {
		return -1, fmt.Errorf("cgroup %s: %w", s.EnginePath, err)
	}
	return fd, nil
}

// HoldsEngine reports whether process pid is in the Engine's leaf of the
// session cgroup, read from /proc/PID/cgroup. The caller makes sure pid
// names whom it means (its unreaped child).
func (s *Session) HoldsEngine(pid int) (bool, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cgroup")
	if err != nil {
		return false, fmt.Errorf("cgroup: %w", err)
	}
	p, ok := parseProcCgroup(b)
	return ok && p == s.EnginePath, nil
}

// Kill writes 1 to the cgroup.kill of the cgroup dirfd names (Linux 5.14):
// every process in it and below it gets SIGKILL.
func Kill(dirfd int) error {
	if err := writeFile(dirfd, "cgroup.kill", "1"); err != nil {
		return fmt.Errorf("cgroup: write cgroup.kill: %w", err)
	}
	return nil
}

// Populated reports whether the cgroup dirfd names has a live process.
func Populated(dirfd int) (bool, error) {
	fd, err := sys.OpenAt(dirfd, "cgroup.events", sys.O_RDONLY)
	if err != nil {
		return false, err
	}
	defer sys.Close(fd)
	return readPopulated(fd)
}

func readPopulated(fd int) (bool, error) {
	var buf [512]byte
	n, err := sys.Pread(fd, buf[:], 0)
	if err != nil {
		return false, fmt.Errorf("cgroup: cgroup.events: %w", err)
	}
	populated, ok := parsePopulated(buf[:n])
	if !ok {
		return false, fmt.Errorf("cgroup: no populated key in cgroup.events: %q", buf[:n])
	}
	return populated, nil
}

// Procs lists the processes of the cgroup dirfd names (not of its
// descendants).
func Procs(dirfd int) ([]int, error) {
	b, err := readFile(dirfd, "cgroup.procs")
	return parseProcs(b), err
}

// Remove removes the cgroup once it is empty, with the empty cgroups
// below it (see [Remove]); it is done once.
func (h *Handle) Remove() error {
	if h.removed {
		return nil
	}
	err := Remove(h.ParentFD, h.Name)
	h.removed = err == nil
	return err
}

// Removed reports whether [Handle.Remove] removed the cgroup.
func (h *Handle) Removed() bool { return h.removed }

// Close releases the cgroup's descriptors; it does not remove it.
func (h *Handle) Close() { sys.CloseFDs(&h.DirFD, &h.ParentFD) }

// Remove removes the session cgroup (see [Remove]); it is done once.
// The Engine's leaf goes first: in the common case, a session whose
// calls' cgroups are gone already, no directory has to be read.
func (s *Session) Remove() error {
	if !s.removed {
		_ = sys.Unlinkat(s.DirFD, EngineLeaf, sys.AT_REMOVEDIR)
	}
	return s.Handle.Remove()
}

// Close releases the descriptors of the session; it does not remove it.
func (s *Session) Close() {
	sys.CloseFDs(&s.EngineFD)
	s.Handle.Close()
}

// maxDepth bounds how deep Remove descends into the cgroups a session's
// processes made below its own (nested sessions); deeper ones are left.
const maxDepth = 16

// Remove removes the cgroup name of the directory parentfd, once it is
// empty, with the empty cgroups below it (left by nested sessions that
// were killed with it). A cgroup that is gone already is no error.
func Remove(parentfd int, name string) error {
	return remove(parentfd, name, maxDepth)
}

func remove(parentfd int, name string, depth int) error {
	err := sys.Unlinkat(parentfd, name, sys.AT_REMOVEDIR)
	if err == nil || errors.Is(err, syscall.ENOENT) {
		return nil
	}
	if !errors.Is(err, syscall.EBUSY) && !errors.Is(err, syscall.ENOTEMPTY) || depth == 0 {
		return &os.PathError{Op: "rmdir", Path: name, Err: err}
	}
	dir, derr := openDir(parentfd, name)
	if derr != nil {
		return &os.PathError{Op: "rmdir", Path: name, Err: err}
	}
	subs, _ := subdirs(dir)
	for _, sub := range subs {
		_ = remove(dir, sub, depth-1)
	}
	sys.Close(dir)
	if err := sys.Unlinkat(parentfd, name, sys.AT_REMOVEDIR); err != nil && !errors.Is(err, syscall.ENOENT) {
		return &os.PathError{Op: "rmdir", Path: name, Err: err}
	}
	return nil
}

// CleanLeftovers removes the session cgroups in p.Dir whose starter is
// gone (no process with the PID and start time of the name lives, and no
// process holds the session's flock, see [Create]) and that are empty. A
// cgroup of a live starter or guard, or one with a live process, is never
// touched. It returns the names it removed.
func CleanLeftovers(p Place) ([]string, error) {
	entries, err := os.ReadDir(p.Dir)
	if err != nil {
		return nil, fmt.Errorf("cgroup: %w", err)
	}
	parent, err := openDir(sys.AT_FDCWD, p.Dir)
	if err != nil {
		return nil, err
	}
	defer sys.Close(parent)
	var removed []string
	for _, e := range entries {
		// A session cgroup, or a supervisor leaf (see [Enable]).
		pid, start, _, ok := ParseName(strings.TrimSuffix(e.Name(), SupervisorSuffix))
		if !ok || !e.IsDir() {
			continue
		}
		if st, err := proc.ReadStat(pid); err == nil && st.StartTime == start {
			continue // its starter lives
		} else if err != nil && !errors.Is(err, os.ErrNotExist) {
			continue // cannot tell: leave it
		}
		dir, err := openDir(parent, e.Name())
		if err != nil {
			continue
		}
		// A session holds its cgroup's flock while its starter or its
		// guard lives, whatever namespace they see PIDs in.
		if sys.Flock(dir, sys.LOCK_EX|sys.LOCK_NB) != nil {
			sys.Close(dir)
			continue
		}
		populated, err := Populated(dir)
		if err == nil && !populated && Remove(parent, e.Name()) == nil {
			removed = append(removed, e.Name())
		}
		sys.Close(dir) // releases the lock
	}
	return removed, nil
}

// ErrNotTheSession is wrapped by EndLeft's error when the directory at the
// path is not the cgroup whose id was recorded (removed and made again).
var ErrNotTheSession = errors.New("cgroup: not the session cgroup recorded")

// openLeft opens the cgroup at dirPath, a session cgroup a dead starter
// left, and its parent, provided its id (its inode number) is still id.
// A cgroup gone already gives -1, -1 and no error.
func openLeft(dirPath string, id uint64) (parent, dir int, err error) {
	parent, err = openDir(sys.AT_FDCWD, path.Dir(dirPath))
	if err == nil {
		if dir, err = openDir(parent, path.Base(dirPath)); err != nil {
			sys.Close(parent)
		}
	}
	if errors.Is(err, syscall.ENOENT) {
		return -1, -1, nil
	}
	if err != nil {
		return -1, -1, err
	}
	if st, err := sys.Fstat(dir); err != nil || st.Ino != id {
		sys.Close(dir)
		sys.Close(parent)
		return -1, -1, fmt.Errorf("%w: %s", ErrNotTheSession, dirPath)
	}
	return parent, dir, nil
}

// held lists the processes of the cgroup dirfd names and of the cgroups
// below it (a session's are in its leaves), each as /proc shows it: one
// whose stat cannot be read has its PID alone.
func held(dirfd int) ([]proc.Stat, error) {
	var out []proc.Stat
	err := walk(dirfd, maxDepth, func(_ uint64, procs []int) {
		for _, pid := range procs {
			st, _ := proc.ReadStat(pid) // zero on an error: its PID alone
			st.PID = pid
			out = append(out, st)
		}
	})
	return out, err
}

// EndLeft ends the cgroup at dirPath, a session cgroup a dead starter left,
// provided its id (its inode number) is still id: cgroup.kill, a wait of
// at most within for "populated 0" (told by poll on cgroup.events, read
// again after each wake-up), then its removal with the cgroups below it.
// It returns the processes it and the cgroups below it listed before the
// kill (what it held, zombies left out); a cgroup gone already is not an
// error. Dry, it lists them and does nothing else.
func EndLeft(dirPath string, id uint64, within time.Duration, dry bool) ([]proc.Stat, error) {
	parent, dir, err := openLeft(dirPath, id)
	if err != nil || dir < 0 {
		return nil, err
	}
	defer sys.Close(parent)
	defer sys.Close(dir)
	if dry {
		return held(dir)
	}
	name := path.Base(dirPath)
	events, err := sys.OpenAt(dir, "cgroup.events", sys.O_RDONLY)
	if err != nil {
		return nil, err
	}
	defer sys.Close(events)
	busy, err := readPopulated(events)
	if err != nil || !busy {
		return nil, errors.Join(err, Remove(parent, name))
	}
	pids, err := held(dir)
	if err != nil {
		return nil, err
	}
	if err := Kill(dir); err != nil {
		return pids, err
	}
	deadline := time.Now().Add(within)
	for busy {
		left := time.Until(deadline)
		if left <= 0 {
			return pids, fmt.Errorf("cgroup: %s still populated %v after cgroup.kill", dirPath, within)
		}
		fds := []sys.PollFd{{Fd: int32(events), Events: sys.POLLPRI}}
		if _, err := sys.Poll(fds, left); err != nil {
			return pids, err
		}
		if busy, err = readPopulated(events); err != nil {
			return pids, err
		}
	}
	return pids, Remove(parent, name)
}
