//go:build linux && !portable

package mark

import (
	"errors"
	"fmt"
	"os"

	"github.com/session-starter/session-starter/internal/proc"
	"github.com/session-starter/session-starter/internal/sys"
)

// Supported reports that marked processes are found and verified here.
const Supported = true

// Scan finds the live processes that carry id in their mark, started at
// or after since (clock ticks since boot), and belong to uid (their real
// user id); skip names PIDs never to look at (the caller, its guard). It
// looks at each numbered process once; a process forked during the scan
// may be missed, so callers scan again until a scan finds nothing new.
// An error means /proc could not be listed; a process that goes away
// while it is read is not an error.
func Scan(id ID, since uint64, uid int, skip func(pid int) bool) ([]Found, []Left, error) {
	pids, err := proc.PIDs()
	if err != nil {
		return nil, nil, fmt.Errorf("mark: %w", err)
	}
	var found []Found
	var left []Left
	for _, pid := range pids {
		if skip != nil && skip(pid) {
			continue
		}
		f, l, ok := verify(pid, id, since, uid)
		switch {
		case ok:
			found = append(found, f)
		case l.Reason != "":
			left = append(left, l)
		}
	}
	return found, left, nil
}

// verify reads pid's mark back off the live process. A first look, with
// no pidfd, passes over what cannot be the session's: older than it, or
// no mark in its environment (most processes of a host). A candidate is
// then verified: a pidfd first, then its stat, owner and environment read
// again, then the pidfd checked to show no exit — so that everything
// read was of the process the pidfd names, whose number cannot have been
// handed out again while it lived. ok with a Found that holds the open
// pidfd; else a Left with a reason, or none (not the session's, or gone).
func verify(pid int, id ID, since uint64, uid int) (Found, Left, bool) {
	if st, err := proc.ReadStat(pid); err != nil || st.StartTime < since || !st.Live() {
		return Found{}, Left{}, false
	}
	environ, err := proc.ReadEnviron(pid)
	switch {
	case errors.Is(err, os.ErrPermission):
		// This user's process whose environment may not be read (one
		// that is not dumpable) may be the session's; another user's is
		// not this user's to end anyway.
		if proc.UID(pid) == uid {
			return Found{}, Left{PID: pid, Reason: LeftUnreadable}, false
		}
		return Found{}, Left{}, false
	case err != nil || !InEnviron(environ, id):
		return Found{}, Left{}, false
	}
	fd, err := sys.PidfdOpen(pid)
	if err != nil {
		return Found{}, Left{}, false
	}
	keep := false
	defer func() {
		if !keep {
			sys.Close(fd)
		}
	}()
	st, err := proc.ReadStat(pid)
	if err != nil || st.StartTime < since || !st.Live() {
		return Found{}, Left{}, false
	}
	owner := proc.UID(pid)
	environ, err = proc.ReadEnviron(pid)
	if exited(fd) || err != nil || !InEnviron(environ, id) {
		return Found{}, Left{}, false
	}
	if owner != uid {
		return Found{}, Left{PID: pid, Reason: LeftOtherUID}, false
	}
	keep = true
	return Found{Stat: st, UID: owner, Pidfd: fd}, Left{}, true
}

// exited reports whether the process of pidfd has exited (the pidfd is
// readable), or cannot be told (an error counts as exited: what was read
// is then not trusted).
func exited(pidfd int) bool {
	fds := []sys.PollFd{{Fd: int32(pidfd), Events: sys.POLLIN}}
	n, err := sys.Poll(fds, 0)
	return err != nil || n > 0
}
