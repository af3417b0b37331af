package contain

import (
	"fmt"
	"os"
	"slices"
	"syscall"

	"github.com/session-starter/session-starter/internal/end"
	"github.com/session-starter/session-starter/internal/sys"
	"github.com/session-starter/session-starter/internal/winjob"
	"github.com/session-starter/session-starter/starter/launch"
)

// tree is a started call on Windows: its leader, created suspended and
// put into a kill-on-close job of its own before its first instruction,
// then resumed. A job made by a process that is in a job (the session's)
// is nested in it: the session's end ends the call's too.
type tree struct {
	pid    int
	h      sys.Handle // the leader
	job    *winjob.Job
	killed bool
}

func conflict(*syscall.SysProcAttr) string { return "" }

// startTree starts the leader suspended, puts it into the call's job,
// and resumes it. A leader that cannot be put into the job is
// terminated before it ran: NotStarted.
func (c *Cmd) startTree() error {
	job, err := winjob.New()
	if err != nil {
		return fmt.Errorf("contain: make the call's job: %w", err)
	}
	if err := limitJob(job, c.Limits); err != nil {
		job.Close()
		return err
	}
	var attr syscall.SysProcAttr
	if c.SysProcAttr != nil {
		attr = *c.SysProcAttr
	}
	attr.CreationFlags |= sys.CREATE_SUSPENDED
	c.SysProcAttr = &attr
	if err := c.Cmd.Start(); err != nil {
		job.Close()
		return err
	}
	// The number is the leader's while os.Process holds its handle.
	h, err := sys.OpenProcess(sys.SYNCHRONIZE|sys.PROCESS_QUERY_LIMITED_INFORMATION|sys.PROCESS_SET_QUOTA|
		sys.PROCESS_TERMINATE|sys.PROCESS_SUSPEND_RESUME, c.Process.Pid)
	if err == nil {
		if err = job.Assign(h); err == nil {
			err = sys.ResumeProcess(h)
		}
	}
	if err != nil {
		_ = c.Process.Kill()
		_ = c.Cmd.Wait()
		if h != 0 {
			_ = sys.CloseHandle(h)
		}
		job.Close()
		c.Process = nil
		return fmt.Errorf("contain: the call's leader could not be put into its job (it was ended before it ran): %w", err)
	}
	c.tree = tree{pid: c.Process.Pid, h: h, job: job}
	return nil
}

// canRelease: a released call's job is nested in the session's, which
// ends what it holds.
func (*Cmd) canRelease() bool { return true }

func (t *tree) waitExit() { _, _ = sys.WaitForSingleObject(t.h, sys.INFINITE) }

func (t *tree) exited() bool {
	ev, err := sys.WaitForSingleObject(t.h, 0)
	return err == nil && ev == sys.WAIT_OBJECT_0
}

// kill ends every process of the call's job with the one end routine;
// there is no stop signal to send on Windows, so the grace is not used.
func (t *tree) kill(c *Cmd, r *Result) error {
	t.killed = true
	return endAll([]end.Holder{&winjob.Holder{Job: t.job, Code: 1}}, end.Plan{Budget: c.KillBudget}, r)
}

// unconfirmedEnds: a job whose end no look observed has not ended.
const unconfirmedEnds = false

// release lists what the job holds besides the exited leader; the job
// keeps it until Close clears its kill-on-close (or EndReleased ends it).
// The error is always nil: the job is the whole list.
func (t *tree) release() ([]int, error) {
	pids, _ := t.job.PIDs()
	pids = slices.DeleteFunc(pids, func(p int) bool { return p == t.pid })
	slices.Sort(pids)
	return pids, nil
}

// close releases the leader's handle, and the job of a killed call; a
// released call keeps its job for endReleased.
func (t *tree) close() {
	if t.h != 0 {
		_ = sys.CloseHandle(t.h)
		t.h = 0
	}
	if t.killed {
		t.forget(true)
	}
}

func (t *tree) endReleased(c *Cmd) error {
	if t.job == nil {
		return nil
	}
	err := t.kill(c, &Result{})
	t.forget(true)
	return err
}

// forget closes a released call's job; unless its processes were
// ended, its kill-on-close is cleared first, so that closing it ends
// nothing. (A job still open when the Engine exits is closed by the
// system, and ends what the call left.)
func (t *tree) forget(ended bool) {
	if t.job != nil {
		if !ended {
			_ = t.job.Release()
		}
		t.job.Close()
		t.job = nil
	}
}

func pipeHolders(*os.File) []int { return nil }

// limitJob sets lim on the call's job before the leader joins it:
// MaxTasks as its ActiveProcessLimit (processes, not threads), MaxMemory
// as its JobMemoryLimit (memory committed), MaxCPU as a hard cap of its
// CPU rate; a job nested in the session's holds within the session's
// limits too. There is no swap bound, and under Wine, which enforces no
// job limit, none is set for show.
func limitJob(job *winjob.Job, lim launch.Limits) error {
	switch {
	case !lim.Any():
		return nil
	case lim.MaxSwap > 0:
		return errNoLimits("a Windows job has no swap bound (MaxMemory bounds committed memory, page file included)")
	case sys.UnderWine():
		return errNoLimits("Wine enforces no job limit")
	}
	if err := job.Limit(lim); err != nil {
		return errNoLimits(err.Error())
	}
	return nil
}

// usage is what the call's job counted of every process it held: CPU
// time and peak committed memory; nothing under Wine, which accounts no
// job time. The leader's own times are not its tree's.
func (t *tree) usage(*os.ProcessState) launch.Usage {
	if t.job == nil {
		return launch.Usage{}
	}
	u, _ := t.job.Usage()
	return u
}
