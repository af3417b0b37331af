//go:build darwin || freebsd

package guard

import (
	"fmt"
	"os"
	"syscall"

	"github.com/session-starter/session-starter/internal/end"
	"github.com/session-starter/session-starter/internal/lineage"
	"github.com/session-starter/session-starter/internal/mark"
	"github.com/session-starter/session-starter/internal/sys"
)

// On macOS and FreeBSD the guard holds no handle of the starter or the
// gate: it watches the starter by the finish pipe alone and the Engine by
// a kqueue it registers once its pin holds group E (pin_unix.go). There
// are no cgroups.

// handles returns the descriptors the guard gets in its gate and starter
// slots: none, both slots closed (-1).
func handles(Spec) (gate, starter int, release func(), err error) {
	return -1, -1, func() {}, nil
}

// spawn forks and executes exe in process group pgid (0: a group of its
// own; setpgid in the child, before its exec), in directory /, and
// returns its PID with a kqueue that tells its exit, registered by number
// after the fork: the child is this process's unreaped child, so the
// number is still its own.
func spawn(exe string, argv, env []string, files []uintptr, pgid int) (pid, fd int, err error) {
	pid, err = syscall.ForkExec(exe, argv, &syscall.ProcAttr{
		Dir:   "/",
		Env:   env,
		Files: files,
		Sys:   &syscall.SysProcAttr{Setpgid: true, Pgid: pgid},
	})
	if err != nil {
		return 0, -1, err
	}
	fd, err = watchChild(pid)
	return pid, fd, err
}

// selfExe is this binary, which the pin executes.
var selfExe = os.Executable

// watchChild returns a kqueue that tells the exit of the child pid; if
// none can be had, the child is killed and reaped, by number while it is
// still unreaped, and -1 returned.
func watchChild(pid int) (int, error) {
	fd, err := sys.WatchChild(pid)
	if err != nil {
		_ = sys.SignalChild(pid, -1, syscall.SIGKILL)
		var ws syscall.WaitStatus
		_, _ = syscall.Wait4(pid, &ws, 0, nil)
		return -1, fmt.Errorf("watch pid %d: %w", pid, err)
	}
	return fd, nil
}

// cgroupHolder refuses a session cgroup: there are no cgroups here.
func cgroupHolder(string) (end.Holder, int) { return nil, refusedNoCgroup }

// removeCgroup has nothing to remove: cgroupHolder accepted no cgroup.
func removeCgroup(string) {}

// markHolders is, for the end once the starter is gone, the escapee sweep
// by lineage (package internal/lineage) of the session marked with id:
// the descendants of the Engine — the leader of group pgid, named by
// token, which the starter read off its
// unreaped child — found by their parents' identities, and the processes
// that carry the mark and started after the Engine, this user's alone,
// each read again right before its signal. The guard itself and skip
// (its pin, its unreaped child) are left out of every snapshot: their
// numbers are theirs while the sweep runs. The sweep's first passes run
// here, before anything is signalled, so that it links the tree as the
// starter left it.
func markHolders(id mark.ID, token uint64, pgid int, skip []int) []end.Holder {
	tab := lineage.Excluding(lineage.System(&id), append(skip, os.Getpid())...)
	return []end.Holder{lineage.NewSweep(lineage.FromToken(pgid, token), os.Getuid(), tab)}
}
