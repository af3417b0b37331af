package contain

import (
	"fmt"
	"os"
	"slices"
	"sync"
	"syscall"

	"github.com/session-starter/session-starter/internal/cgroup"
	"github.com/session-starter/session-starter/internal/end"
	"github.com/session-starter/session-starter/internal/mark"
	"github.com/session-starter/session-starter/internal/proc"
	"github.com/session-starter/session-starter/internal/sys"
	"github.com/session-starter/session-starter/starter/launch"
)

// conflictOS names a Linux field the call's tree needs for itself.
func conflictOS(a *syscall.SysProcAttr) string {
	switch {
	case a.UseCgroupFD:
		return "UseCgroupFD"
	case a.PidFD != nil:
		return "PidFD"
	}
	return ""
}

// passing serializes the direct starts of calls: one start's restore must
// not clear the flags another start relies on.
var passing sync.Mutex

// passOnlyAsked makes the call receive its Stdin, Stdout, Stderr and
// ExtraFiles and nothing else, as through the spawn helper: every other
// descriptor this process holds without close-on-exec is marked so until
// restore, which the caller runs once the call has started (the fork put
// the call's own files in place as always). Until then a plain child this
// process starts in another goroutine does not inherit them either.
func passOnlyAsked() (restore func()) {
	passing.Lock()
	type file struct{ dev, ino uint64 }
	marked := map[int]file{}
	for _, fd := range proc.Inheritable() {
		if st, err := sys.Fstat(fd); err == nil && sys.SetCloseOnExec(fd) == nil {
			marked[fd] = file{uint64(st.Dev), st.Ino}
		}
	}
	return func() {
		// Only a number that still names the file it named: one closed
		// and reused meanwhile keeps its own flag.
		for fd, f := range marked {
			if st, err := sys.Fstat(fd); err == nil && (file{uint64(st.Dev), st.Ino}) == f {
				_ = sys.ClearCloseOnExec(fd)
			}
		}
		passing.Unlock()
	}
}

// cgroupStartNeeds is the most descriptors a start in a call cgroup
// opens, once the call's pipes are made: exec's /dev/null for each of
// three nil standard descriptors, the fork's error pipe (two), the
// leader's pidfd, and the call cgroup's two.
const cgroupStartNeeds = 8

// freeDescriptors is how many descriptor numbers below the soft
// RLIMIT_NOFILE are free (0 when that cannot be told).
func freeDescriptors() int {
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil {
		return 0
	}
	fds, err := proc.OpenFDs()
	if err != nil {
		return 0
	}
	used := 0
	for _, fd := range fds {
		if uint64(fd) < rl.Cur {
			used++
		}
	}
	return int(min(rl.Cur, 1<<20)) - used
}

// callCgroup is a call's own cgroup below the session cgroup: the
// leader is born into it, the end kills what it holds, its counters are
// the call's usage, and it is removed once what it held ended.
type callCgroup struct {
	c      *cgroup.Call
	holder *cgroup.Holder // opened at the first end or release
}

// placeCall gives the call a cgroup of its own in the session cgroup
// when this process is in a cgroup-mode session (the Engine, or a call of
// it): born there with CLONE_INTO_CGROUP, so that not one instruction of
// the call runs outside it, and given lim before that. A fresh cgroup has
// never seen a cgroup.kill, so the birth is not refused. Elsewhere (group
// mode, not in a session, a session cgroup this process may not write)
// the call has its group only, inside whatever holds this process — or,
// with lim, it fails: a limit is never silently not applied.
func placeCall(id string, lim launch.Limits) (callLayer, error) {
	// The mark first: a call under no session reads no mountinfo.
	_, marked := os.LookupEnv(mark.Var)
	var p cgroup.Place
	if marked {
		p, marked = cgroup.InSession()
	}
	if !marked {
		if lim.Any() {
			return nil, errNoLimits("this process is not in a session in cgroup mode (start the Engine with session-starter --containment cgroup --call-limits …)")
		}
		return nil, nil
	}
	if !lim.Any() && freeDescriptors() < cgroupStartNeeds {
		// Short of descriptors: a call cgroup's two would fail a start
		// that group mode makes. The call runs without (in the Engine's
		// leaf, inside the session cgroup), as when one cannot be made.
		return nil, nil
	}
	// Without the controllers, the counters only: a call without limits
	// runs without them.
	if err := cgroup.ForCalls(p, cgroup.Controllers(lim)); err != nil && lim.Any() {
		return nil, errNoLimits(fmt.Sprintf("%v (start the session with --call-limits naming them)", err))
	}
	c, err := cgroup.MakeCall(p, id)
	if err != nil {
		if lim.Any() {
			return nil, errNoLimits(err.Error())
		}
		return nil, nil
	}
	if lim.Any() {
		if err := c.SetLimits(lim); err != nil {
			_ = c.Remove()
			c.Close()
			return nil, errNoLimits(err.Error())
		}
	}
	return &callCgroup{c: c}, nil
}

// born puts the leader in the call's cgroup at its birth.
func (cg *callCgroup) born(c *Cmd, attr *syscall.SysProcAttr) {
	attr.UseCgroupFD, attr.CgroupFD = true, cg.c.DirFD
	c.result.Cgroup = cg.c.Path
}

// held is the call cgroup as a holder of the end, or none.
func (cg *callCgroup) held() []end.Holder {
	if cg.holder == nil {
		h, err := cgroup.NewHolder(cg.c.DirFD)
		if err != nil {
			return nil
		}
		cg.holder = h
	}
	return []end.Holder{cg.holder}
}

func (cg *callCgroup) holders(*tree) ([]end.Holder, []*end.Process, error) {
	return cg.held(), nil, nil
}

// release lists what the cgroup holds; the cgroup stays open, its
// holder does not until endReleased.
func (cg *callCgroup) release(_ *tree, left []int) ([]int, error) {
	pids := end.LivePIDs(cg.held())
	cg.closeHolder()
	return slices.DeleteFunc(pids, func(pid int) bool { return slices.Contains(left, pid) }), nil
}

func (cg *callCgroup) closeHolder() {
	if cg.holder != nil {
		cg.holder.Close()
		cg.holder = nil
	}
}

func (cg *callCgroup) leftHolders(hs []end.Holder) []end.Holder { return append(hs, cg.held()...) }

// ended replaces u with what the call's cgroup counted of its whole
// tree, exited processes included, when it has the CPU counter (the
// leader's reap tells the CPU time otherwise).
func (cg *callCgroup) ended(u *launch.Usage, _ *os.ProcessState) {
	if c := cgroup.UsageOf(cg.c.DirFD); c.CPUMS != nil {
		*u = c
	}
}

// holds reports whether something lives in the cgroup: an empty one is
// removed (the kernel refuses to remove a populated cgroup).
func (cg *callCgroup) holds() bool { return cg.c.Remove() != nil }

// close removes the cgroup when remove says its tree ended (a released
// call's leftovers stay in it, and the session's removal removes it) and
// closes its descriptors.
func (cg *callCgroup) close(remove bool) {
	cg.closeHolder()
	if remove {
		_ = cg.c.Remove()
	}
	cg.c.Close()
}
