//go:build darwin || freebsd || linux

package ledger

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/session-starter/session-starter/internal/dockercli"
	"github.com/session-starter/session-starter/internal/mark"
	"github.com/session-starter/session-starter/internal/proc"
	"github.com/session-starter/session-starter/internal/sys"
)

// reclaimPasses bounds the scans for one session's marked processes: each
// pass ends what it found, and the next finds what forked meanwhile; a
// tree that still forks after this many is left to the next reclaim
// (and reported by it).
const reclaimPasses = 64

// containersWait bounds how long a reclaim waits for an engine to stop a
// session's containers and remove those made with --rm. Its clock starts
// at the first command to the engine.
const containersWait = time.Minute

// Namespace verdicts of a record (whereIs).
const (
	nsOwn   = iota // this process's namespaces: the record may be acted on
	nsOther        // another's, or none named: reported, never acted on
	nsGone         // a PID namespace in which nothing is left: dropped
)

// Reclaim ends what the dead sessions of this user's ledger left, as the
// package doc says; dry, it only reports what it would end. It never
// runs where /proc is of another PID namespace than this process's, nor
// touches a session whose starter or guard lives, nor one whose record is
// of other namespaces than this process's (other-namespace) or names
// none (version 1). A record of another boot (other-boot), or of a PID
// namespace in which nothing is left (namespace-gone), is removed with
// nothing signalled. ctx is looked at before
// each session: once it is done, Reclaim returns what it did so far with
// ctx's error; a session begun is finished first (its passes and its
// cgroup's wait are bounded). A session's containers (Record.Containers)
// are stopped and, made with --rm, removed through their engine, without
// grace, once its processes are ended; dry, they are listed.
func Reclaim(ctx context.Context, dry bool) (Report, error) {
	dir, fd, err := OpenDir()
	if err != nil {
		return Report{}, err
	}
	defer sys.Close(fd)
	rep := Report{Event: "reclaimed", Dir: dir, DryRun: dry, Sessions: []Session{}, Problems: []Problem{}}
	boot, err := BootID()
	if err != nil {
		return rep, err
	}
	recs, probs, err := Read(dir)
	if err != nil {
		return rep, err
	}
	rep.Problems = append(rep.Problems, probs...)
	if len(recs) == 0 {
		return rep, nil
	}
	// Every number is read in /proc and acted on through pidfds: a /proc
	// of another PID namespace would make them name other processes.
	if err := proc.SameNamespace(); err != nil {
		return rep, fmt.Errorf("ledger: %w", err)
	}
	here, err := Here()
	if err != nil {
		return rep, err
	}
	for _, r := range recs {
		if err := ctx.Err(); err != nil {
			return rep, err
		}
		s := Session{Session: r.Session, Ended: []Ended{}, Left: []LeftProcess{}, GuardEnd: r.GuardEnd}
		where, why := nsGone, "other-boot"
		if r.BootID == boot {
			where, why = whereIs(fd, r, here, dry)
		}
		switch {
		case where == nsGone:
			// Of another boot (nothing is read of it but the boot id), or
			// of a PID namespace in which nothing is left: no process of
			// it lives.
			s.Action = cmp.Or(why, "namespace-gone")
			if !dry {
				_ = Remove(fd, r.Session)
			}
		case where == nsOther:
			// Its numbers are another namespace's, or of no namespace
			// named: none is looked up here, and nothing is signalled.
			s.Action = "other-namespace"
			s.Left = append(s.Left, LeftProcess{Reason: "other-namespace: " + why})
		case !shownGone(&s, r.Starter, r.Guard):
			// Live, or unverified: left alone either way.
		default:
			if id, err := mark.Parse(r.Session); err != nil {
				s.Left = append(s.Left, LeftProcess{Reason: "token-mismatch"})
			} else {
				reclaim(&s, r, id, dry)
			}
			if r.Containers != nil {
				reclaimContainers(ctx, &s, r, dry)
			}
			if dry {
				s.Action = "would-reclaim"
			} else {
				// A survivor keeps the record, for the next reclaim.
				s.Action = "reclaimed"
				if slices.ContainsFunc(s.Left, func(l LeftProcess) bool { return l.Survivor }) {
					break
				}
				if err := Remove(fd, r.Session); err != nil {
					rep.Problems = append(rep.Problems, Problem{File: FileName(r.Session), Reason: err.Error()})
				}
			}
		}
		rep.Sessions = append(rep.Sessions, s)
	}
	return rep, nil
}

// reclaimContainers has the engine of r's containers stop them at once
// and remove those made with --rm; dry, it lists them. An engine that
// fails leaves a survivor: the record stays for the next reclaim.
func reclaimContainers(ctx context.Context, s *Session, r Record, dry bool) {
	ctx, cancel := context.WithTimeout(ctx, containersWait)
	defer cancel()
	var err error
	if dry {
		s.Containers, err = r.Containers.List(ctx, r.Session)
	} else {
		var e dockercli.Ended
		e, err = r.Containers.End(ctx, r.Session, 0)
		s.Containers = slices.Compact(slices.Sorted(slices.Values(slices.Concat(e.Stopped, e.Removed))))
	}
	if err != nil {
		s.Left = append(s.Left, LeftProcess{Reason: "containers: " + err.Error(), Survivor: true})
	}
}

// shownGone reports whether every one of ps (the starter and the guard)
// is shown gone; otherwise it sets the session's action: "live", or
// "unverified" with the reason in Left where one could not be told. A
// PID now held by a stranger counts as gone and is reported in Left as
// token-mismatch: the reclaim never signals it.
func shownGone(s *Session, ps ...Process) bool {
	var reused []LeftProcess
	for _, p := range ps {
		gone, other, err := Gone(p.PID, p.Token)
		switch {
		case err != nil:
			s.Action = "unverified"
			s.Left = append(s.Left, LeftProcess{PID: p.PID, Reason: "unverifiable: " + err.Error()})
			return false
		case !gone:
			s.Action = "live"
			return false
		case other:
			reused = append(reused, LeftProcess{PID: p.PID, Reason: "token-mismatch"})
		}
	}
	s.Left = append(s.Left, reused...)
	return true
}
