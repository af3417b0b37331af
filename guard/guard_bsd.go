//go:build darwin || freebsd

package guard

import (
	"os"

	"github.com/session-starter/session-starter/internal/end"
	"github.com/session-starter/session-starter/internal/lineage"
	"github.com/session-starter/session-starter/internal/mark"
)

// On macOS and FreeBSD the guard holds no handle of the starter or the
// gate: it watches the starter by the finish pipe alone and the Engine by
// a kqueue it registers once its pin holds group E (pin_unix.go). There
// are no cgroups.

// selfExe is this binary, which the pin executes.
var selfExe = os.Executable

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
