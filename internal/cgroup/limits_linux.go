package cgroup

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"

	"github.com/session-starter/session-starter/internal/proc"
	"github.com/session-starter/session-starter/internal/sys"
	"github.com/session-starter/session-starter/starter/launch"
)

// SupervisorSuffix ends the name of the leaf cgroup this process moves
// itself into (see [Enable]): the name of a session cgroup ([Name]) with
// this suffix.
const SupervisorSuffix = ".supervisor"

// moved is set while this process lives in a supervisor leaf of its own
// making: a second [Enable] that would move it is refused.
var moved atomic.Bool

// Supervisor is the leaf cgroup this process moved itself into so that
// its cgroup could enable controllers for the session cgroups below it.
type Supervisor struct {
	// Name is the leaf's name in the cgroup it left; Path the leaf as
	// /proc/PID/cgroup shows it.
	Name, Path string
	parentFD   int      // the cgroup it left
	enabled    []string // the controllers Enable turned on there
}

// PlaceAt is the place of the cgroup at dir, an absolute directory of the
// cgroup2 mount, as [Locate] gives this process's own: where
// --cgroup-parent asks session cgroups to be made.
func PlaceAt(dir string) (Place, error) {
	if !path.IsAbs(dir) {
		return Place{}, fmt.Errorf("cgroup: %s: not an absolute path", dir)
	}
	own, err := Locate()
	if err != nil {
		return Place{}, err
	}
	dir = path.Clean(dir)
	rel, ok := strings.CutPrefix(dir, own.Mount.Point)
	if !ok || (rel != "" && rel[0] != '/') {
		return Place{}, fmt.Errorf("cgroup: %s is not below the cgroup2 mount at %s", dir, own.Mount.Point)
	}
	fd, err := openDir(sys.AT_FDCWD, dir)
	if err != nil {
		return Place{}, fmt.Errorf("cgroup: %s: %w", dir, err)
	}
	sys.Close(fd)
	return Place{Mount: own.Mount, Own: path.Join(own.Mount.Root, rel), Dir: dir}, nil
}

// Enable makes the controllers need available to the cgroups made in p:
// each must be in p's cgroup.controllers (else [ErrOnV1] when this host
// binds it to a cgroup v1 hierarchy, or [ErrNotDelegated]), and is
// written to its cgroup.subtree_control unless it is there already.
//
// A cgroup other than the root may do that only while it holds no
// process: the "no internal processes" rule refuses the memory controller
// (EBUSY), and the threaded ones (pids, cpu), which it accepts, turn the
// cgroup into the root of a threaded subtree, below which a new cgroup
// comes out "domain invalid" and can hold no process (measured on Linux
// 6.1). So where p holds processes and self is set — p is this process's
// own cgroup — and this process is the only one, it first moves itself
// (every thread: cgroup.procs) into a leaf cgroup of p of its own, named
// as a session cgroup plus [SupervisorSuffix], which is returned for
// [Supervisor.Restore]; a process born after that (the guard) is born
// there. Other processes in p make it fail with [ErrShared], naming them;
// so does a p given by the caller (self unset) that holds any.
//
// Nothing is moved or enabled when it fails: a leaf made is removed again
// and this process put back.
func Enable(p Place, need []string, self bool) (*Supervisor, error) {
	dir, err := openDir(sys.AT_FDCWD, p.Dir)
	if err != nil {
		return nil, err
	}
	keep := false
	defer func() {
		if !keep {
			sys.Close(dir)
		}
	}()
	todo, move, err := plan(dir, p, need, self)
	if err != nil || len(todo) == 0 {
		return nil, err
	}
	var sup *Supervisor
	if move {
		if !moved.CompareAndSwap(false, true) {
			return nil, fmt.Errorf("cgroup: %s: this process moved itself into a supervisor cgroup for another session already; make the sessions' cgroups in a cgroup with no process", p.Own)
		}
		if sup, err = moveSelf(dir, p); err != nil {
			moved.Store(false)
			return nil, err
		}
		keep = true // sup owns dir now
	}
	if err := enableIn(dir, todo, "+"); err != nil {
		err = fmt.Errorf("cgroup: enable %s in %s: %w", strings.Join(todo, ", "), p.Own, err)
		return nil, errors.Join(err, sup.Restore())
	}
	if sup != nil {
		sup.enabled = todo
	}
	// Without a move: the root cgroup, or a cgroup of the caller's with
	// no process. Other sessions may rely on what was enabled there, and
	// nothing here turns it off again.
	return sup, nil
}

// CheckEnable says what [Enable] would do in p for need, doing none of
// it: the controllers it would turn on, whether this process would move
// into a supervisor leaf first, or the error Enable would fail with.
func CheckEnable(p Place, need []string, self bool) (todo []string, move bool, err error) {
	dir, err := openDir(sys.AT_FDCWD, p.Dir)
	if err != nil {
		return nil, false, err
	}
	defer sys.Close(dir)
	return plan(dir, p, need, self)
}

// plan is the decision of Enable for the cgroup dir at p: the
// controllers of need to turn on, and whether this process must move out
// of dir first; or why it cannot be done.
func plan(dir int, p Place, need []string, self bool) (todo []string, move bool, err error) {
	avail, err := readFile(dir, "cgroup.controllers")
	if err != nil {
		return nil, false, err
	}
	absent := without(need, words(avail))
	own, _ := os.ReadFile("/proc/self/cgroup") // unread: none found on v1
	if v1 := onV1(own, absent); len(v1) > 0 {
		return nil, false, fmt.Errorf("%w: %s bound to a v1 hierarchy here (/proc/self/cgroup)", ErrOnV1, strings.Join(v1, ", "))
	}
	if len(absent) > 0 {
		return nil, false, fmt.Errorf("%w: %s in %s (its cgroup.controllers: %q)", ErrNotDelegated, strings.Join(absent, ", "), p.Own, strings.TrimSpace(string(avail)))
	}
	on, err := readFile(dir, "cgroup.subtree_control")
	if err != nil {
		return nil, false, err
	}
	if todo = without(need, words(on)); len(todo) == 0 {
		return nil, false, nil
	}
	// The root cgroup, which the no-internal-processes rule exempts, is
	// the one cgroup without a cgroup.type (Linux 4.14, before which
	// nothing is threaded).
	switch _, err := sys.Fstatat(dir, "cgroup.type", 0); {
	case errors.Is(err, syscall.ENOENT):
		return todo, false, nil
	case err != nil:
		return nil, false, fmt.Errorf("cgroup: %s: %w", p.Own, err)
	}
	pids, err := Procs(dir)
	if err != nil {
		return nil, false, fmt.Errorf("cgroup: %s: %w", p.Own, err)
	}
	if len(pids) == 0 {
		return todo, false, nil
	}
	if err := onlyThisProcess(pids, p.Own, self); err != nil {
		return nil, false, err
	}
	return todo, true, nil
}

// onlyThisProcess checks that pids, the processes of the cgroup own,
// are none but this one (and, unless self, not this one either).
func onlyThisProcess(pids []int, own string, self bool) error {
	others := slices.DeleteFunc(pids, func(pid int) bool { return self && pid == os.Getpid() })
	if len(others) == 0 {
		return nil
	}
	named := make([]string, 0, min(len(others), 8))
	for _, pid := range others[:min(len(others), 8)] {
		comm := "?"
		if st, err := proc.ReadStat(pid); err == nil {
			comm = st.Comm
		}
		named = append(named, fmt.Sprintf("%d (%s)", pid, comm))
	}
	more := ""
	if len(others) > len(named) {
		more = fmt.Sprintf(" and %d more", len(others)-len(named))
	}
	return fmt.Errorf("%w: %s holds %s%s", ErrShared, own, strings.Join(named, ", "), more)
}

// moveSelf makes a supervisor leaf in the cgroup dir (at p) and moves
// this process into it.
func moveSelf(dir int, p Place) (*Supervisor, error) {
	st, err := proc.ReadStat(os.Getpid())
	if err != nil {
		return nil, fmt.Errorf("cgroup: %w", err)
	}
	name := Name(os.Getpid(), st.StartTime, seq.Add(1)) + SupervisorSuffix
	if err := sys.Mkdirat(dir, name, 0o755); err != nil {
		return nil, &os.PathError{Op: "mkdir", Path: path.Join(p.Dir, name), Err: err}
	}
	sup := &Supervisor{Name: name, Path: path.Join(p.Own, name), parentFD: dir}
	if err := joinSelf(dir, name); err != nil {
		_ = sys.Unlinkat(dir, name, sys.AT_REMOVEDIR)
		return nil, fmt.Errorf("cgroup: move into %s: %w", sup.Path, err)
	}
	return sup, nil
}

// joinSelf writes this process's PID to the cgroup.procs of the cgroup
// name in dir ("." for dir itself): every thread of it moves.
func joinSelf(dir int, name string) error {
	return writeFile(dir, path.Join(name, "cgroup.procs"), strconv.Itoa(os.Getpid()))
}

// enableIn writes sign (+ or -) and each controller of cs to the
// cgroup.subtree_control of dir, in one write: the kernel applies all or
// none.
func enableIn(dir int, cs []string, sign string) error {
	return writeFile(dir, "cgroup.subtree_control", sign+strings.Join(cs, " "+sign))
}

// Restore undoes what [Enable] did, as far as it can: it turns the
// controllers it enabled off again, moves this process back into the
// cgroup it left and removes the leaf. Each step needs the one before:
// controllers stay on while a cgroup below uses them (a session cgroup
// left with survivors), and the leaf stays while a process is in it (a
// guard that has not exited yet); [CleanLeftovers] removes it later. It
// returns what it could not undo.
func (s *Supervisor) Restore() error {
	if s == nil || s.parentFD < 0 {
		return nil
	}
	defer func() {
		sys.Close(s.parentFD)
		s.parentFD = -1
		moved.Store(false)
	}()
	if len(s.enabled) > 0 {
		if err := enableIn(s.parentFD, s.enabled, "-"); err != nil {
			return fmt.Errorf("cgroup: turn %s off again: %w", strings.Join(s.enabled, ", "), err)
		}
	}
	if err := joinSelf(s.parentFD, "."); err != nil {
		return fmt.Errorf("cgroup: move back out of %s: %w", s.Path, err)
	}
	if err := sys.Unlinkat(s.parentFD, s.Name, sys.AT_REMOVEDIR); err != nil && !errors.Is(err, syscall.ENOENT) {
		return &os.PathError{Op: "rmdir", Path: s.Path, Err: err}
	}
	return nil
}

// SetLimits writes l to the cgroup and reads each file back: a file
// that is not there (its controller is not enabled for the cgroup; but
// for memory.swap.max 0, absent where the kernel accounts no swap), a
// write the kernel refuses and a value read back that is not the one
// asked for (rounded down to whole pages for memory) are errors, naming
// the file.
func (h *Handle) SetLimits(l launch.Limits) error {
	for _, w := range writes(l, int64(os.Getpagesize())) {
		err := writeFile(h.DirFD, w.file, w.value)
		switch {
		case errors.Is(err, syscall.ENOENT) && w.optional:
			continue // no swap accounting: no swap to bound
		case errors.Is(err, syscall.ENOENT):
			return fmt.Errorf("cgroup %s: no %s: its controller is not enabled for it", h.Path, w.file)
		case err != nil:
			return fmt.Errorf("cgroup %s: write %q to %s: %w", h.Path, w.value, w.file, err)
		}
		b, err := readFile(h.DirFD, w.file)
		if err != nil {
			return fmt.Errorf("cgroup %s: after %q was written: %w", h.Path, w.value, err)
		}
		if got := strings.TrimSpace(string(b)); got != w.want {
			return fmt.Errorf("cgroup %s: %s reads %q after %q was written, want %q", h.Path, w.file, got, w.value, w.want)
		}
	}
	return nil
}

// UsageOf reads the counters of the cgroup dirfd names, a session's or a
// contained call's (see [usageFrom]); a counter it cannot read is nil.
func UsageOf(dirfd int) launch.Usage {
	return usageFrom(func(file, key string) *int64 {
		b, err := readFile(dirfd, file)
		if err != nil {
			return nil
		}
		n, ok := flatKeyed(b, key)
		if !ok {
			return nil
		}
		return &n
	})
}

// without is the controllers of cs, in their order, that are not in
// have.
func without(cs, have []string) []string {
	return slices.DeleteFunc(slices.Clone(cs), func(c string) bool { return slices.Contains(have, c) })
}

// words splits a space-separated cgroup file (cgroup.controllers,
// cgroup.subtree_control).
func words(b []byte) []string { return strings.Fields(string(b)) }

// readFile reads the file name of the cgroup directory dir whole.
func readFile(dir int, name string) ([]byte, error) {
	fd, err := sys.OpenAt(dir, name, sys.O_RDONLY)
	if err != nil {
		return nil, fmt.Errorf("cgroup: %s: %w", name, err)
	}
	f := os.NewFile(uintptr(fd), name)
	defer f.Close()
	b, err := io.ReadAll(f)
	if err != nil {
		return nil, fmt.Errorf("cgroup: %s: %w", name, err)
	}
	return b, nil
}

// writeFile writes data to the file name of the cgroup directory dir, in
// one write.
func writeFile(dir int, name, data string) error {
	fd, err := sys.OpenAt(dir, name, sys.O_WRONLY)
	if err != nil {
		return err
	}
	defer sys.Close(fd)
	return sys.WriteAll(fd, []byte(data))
}
