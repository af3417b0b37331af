package contain

import (
	"fmt"
	"os"
	"sync"
	"syscall"

	"github.com/session-starter/session-starter/internal/cgroup"
	"github.com/session-starter/session-starter/internal/end"
	"github.com/session-starter/session-starter/internal/mark"
	"github.com/session-starter/session-starter/internal/proc"
	"github.com/session-starter/session-starter/internal/sys"
	"github.com/session-starter/session-starter/starter"
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

// inheritable lists this process's descriptors from 3 up that are not
// close-on-exec: those every child would inherit.
func inheritable() []int {
	fds, _ := proc.OpenFDs()
	var out []int
	for _, fd := range fds {
		if cloexec, err := sys.CloseOnExec(fd); fd > 2 && err == nil && !cloexec {
			out = append(out, fd)
		}
	}
	return out
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
	for _, fd := range inheritable() {
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

// callCgroup is a call's own cgroup below the session cgroup.
type callCgroup struct{ c *cgroup.Call }

// placeCall gives the call a cgroup of its own in the session cgroup
// when this process is in a cgroup-mode session (the Engine, or a call of
// it): born there with CLONE_INTO_CGROUP, so that not one instruction of
// the call runs outside it, and given lim before that. A fresh cgroup has
// never seen a cgroup.kill, so the birth is not refused. Elsewhere (group
// mode, not in a session, a session cgroup this process may not write)
// the call has its group only, inside whatever holds this process — or,
// with lim, it fails: a limit is never silently not applied.
func placeCall(attr *syscall.SysProcAttr, id string, lim starter.Limits) (*callCgroup, error) {
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
	cl := cgroup.Limits{Tasks: int64(lim.MaxTasks), Memory: lim.MaxMemory, Swap: lim.MaxSwap, CPU: lim.MaxCPU}
	if err := cgroup.ForCalls(p, cl.Controllers()); err != nil {
		if lim.Any() {
			return nil, errNoLimits(fmt.Sprintf("%v (start the session with --call-limits naming them)", err))
		}
		// The counters only: the call runs without them.
	}
	c, err := cgroup.MakeCall(p, id)
	if err != nil {
		if lim.Any() {
			return nil, errNoLimits(err.Error())
		}
		return nil, nil
	}
	if lim.Any() {
		if err := c.SetLimits(cl); err != nil {
			_ = c.Remove()
			c.Close()
			return nil, errNoLimits(err.Error())
		}
	}
	attr.UseCgroupFD, attr.CgroupFD = true, c.DirFD
	return &callCgroup{c: c}, nil
}

func (cg *callCgroup) path() string { return cg.c.Path }

// holder is the call cgroup as a holder of the end, with what releases
// it, or nil.
func (cg *callCgroup) holder() (end.Holder, func()) {
	if cg == nil {
		return nil, nil
	}
	h, err := cgroup.NewHolder(cg.c.DirFD)
	if err != nil {
		return nil, nil
	}
	return h, h.Close
}

// usage is what the call's cgroup counted of its whole tree, exited
// processes included; false without a cgroup or its CPU counter (the
// leader's reap tells the CPU time then).
func (cg *callCgroup) usage() (launch.Usage, bool) {
	if cg == nil {
		return launch.Usage{}, false
	}
	u := cgroup.UsageOf(cg.c.DirFD)
	return u, u.CPUMS != nil
}

// removeEmpty removes the call's cgroup if nothing lives in it, and
// reports whether it is gone (true without one).
func (cg *callCgroup) removeEmpty() bool { return cg == nil || cg.c.Remove() == nil }

// abandon removes the cgroup of a call that did not start.
func (cg *callCgroup) abandon() { cg.done(true) }

// done removes the cgroup of a call whose tree was ended (a released
// call's leftovers stay in it, and the session's removal removes it) and
// closes its descriptors.
func (cg *callCgroup) done(remove bool) {
	if cg == nil {
		return
	}
	if remove {
		_ = cg.c.Remove()
	}
	cg.c.Close()
}
