//go:build darwin || freebsd

package ledger

import (
	"errors"
	"fmt"
	"os"
	"syscall"

	"github.com/session-starter/session-starter/internal/lineage"
	"github.com/session-starter/session-starter/internal/mark"
	"github.com/session-starter/session-starter/internal/sys"
)

// reclaim ends the session of r (id: its mark) on macOS and FreeBSD,
// which have no cgroup and no pidfd: its Engine, where the live process
// at the recorded PID has its token, then the Engine's descendants found
// by lineage and the processes that carry the mark where the kernel lets
// it be read (package internal/lineage: each read again right before its
// signal), in passes until one finds nothing left. On macOS, where
// another process's environment is usually unreadable, what it ends is
// what the record names by its token and what descends from it; a process
// of the session that is neither is not found, and no reclaim can name
// it.
func reclaim(s *Session, r Record, id mark.ID, dry bool) {
	uid := os.Getuid()
	left := map[int]LeftProcess{}
	switch h, live, err := open(r.Engine.PID, r.Engine.Token); {
	case err == nil:
		if live.UID != uid {
			left[r.Engine.PID] = LeftProcess{Reason: "other-uid"}
		} else {
			s.Ended = append(s.Ended, Ended{PID: r.Engine.PID, Comm: live.Stat.Comm})
			if !dry {
				if err := h.Signal(syscall.SIGKILL); err != nil && !errors.Is(err, sys.ErrGone) {
					left[r.Engine.PID] = LeftProcess{Reason: fmt.Sprintf("signal: %v", err), Survivor: true}
				}
			}
		}
		h.Close()
	case errors.Is(err, errMismatch):
		left[r.Engine.PID] = LeftProcess{Reason: "token-mismatch"}
	case !errors.Is(err, sys.ErrGone):
		left[r.Engine.PID] = LeftProcess{Reason: "unverifiable: " + err.Error()}
	}
	sweep := lineage.NewSweep(r.Engine.Token.identity(r.Engine.PID), uid, lineage.Excluding(lineage.System(&id), os.Getpid()))
	if !dry {
		for range reclaimPasses {
			err := sweep.Signal(syscall.SIGKILL)
			if errors.Is(err, sys.ErrGone) {
				break
			}
			if err != nil {
				s.Left = append(s.Left, LeftProcess{Reason: "platform: " + err.Error()})
				break
			}
		}
	}
	live, err := sweep.Live()
	if err != nil {
		s.Left = append(s.Left, LeftProcess{Reason: "platform: " + err.Error()})
	}
	for _, m := range live {
		switch {
		case m.Denied || m.UID != uid:
			left[m.PID] = LeftProcess{Reason: "other-uid"}
		case !dry:
			left[m.PID] = LeftProcess{Reason: "survivor: SIGKILL did not end it", Survivor: true}
		}
	}
	for _, p := range sweep.Found() {
		if _, ok := left[p.ID.PID]; !ok {
			s.Ended = append(s.Ended, Ended{PID: p.ID.PID, Comm: p.Stat.Comm})
		}
	}
	for pid, l := range left {
		l.PID = pid
		s.Left = append(s.Left, l)
	}
}
