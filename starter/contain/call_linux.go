package contain

import (
	"os"
	"syscall"
	"time"

	"github.com/session-starter/session-starter/internal/cgroup"
	"github.com/session-starter/session-starter/internal/end"
	"github.com/session-starter/session-starter/internal/mark"
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

// callCgroup is a call's own cgroup below the session cgroup.
type callCgroup struct{ c *cgroup.Call }

// placeCall gives the call a cgroup of its own below the session cgroup
// when this process is an Engine of a cgroup-mode session: born there
// with CLONE_INTO_CGROUP, so that not one instruction of the call runs
// outside it. A fresh cgroup has never seen a cgroup.kill, so the birth
// is not refused. Elsewhere (group mode, not in a session, a session
// cgroup this process may not write) the call has its group only, inside
// whatever holds this process.
func placeCall(attr *syscall.SysProcAttr, id string) *callCgroup {
	if _, ok := os.LookupEnv(mark.Var); !ok {
		return nil
	}
	p, ok := cgroup.InSession()
	if !ok {
		return nil
	}
	c, err := cgroup.MakeCall(p, id)
	if err != nil {
		return nil
	}
	attr.UseCgroupFD, attr.CgroupFD = true, c.DirFD
	return &callCgroup{c: c}
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

// cpu is the CPU time of the call's whole tree, exited processes
// included, from its cgroup's cpu.stat; false without a cgroup or the
// counter.
func (cg *callCgroup) cpu() (time.Duration, bool) {
	if cg == nil {
		return 0, false
	}
	u := cgroup.UsageOf(cg.c.DirFD)
	if u.CPU == nil {
		return 0, false
	}
	return time.Duration(*u.CPU) * time.Microsecond, true
}

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
