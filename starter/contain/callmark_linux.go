//go:build linux && !portable

package contain

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"syscall"

	"github.com/session-starter/session-starter/internal/end"
	"github.com/session-starter/session-starter/internal/mark"
	"github.com/session-starter/session-starter/internal/proc"
	"github.com/session-starter/session-starter/internal/sys"
)

// callMark is a call's own id in the mark, after the session's (if any):
// what finds the call's orphans, re-parented to a subreaper (the
// session's starter, the spawn helper) where no walk from the leader
// reaches them. A call with a cgroup of its own has none: the cgroup
// decides there.
//
// As a layer of the call it holds, in group mode, the orphans a look
// finds by the mark, and the marked processes of the call at the end.
type callMark struct {
	keeper
	id     mark.ID
	since  uint64 // the leader's start, in clock ticks since boot; 0 until read
	leader int    // held by its own holder, not taken for an orphan
}

// newCallMark gives a call's environment, env, an id of the call's own,
// nested in the mark as a nested session's is.
func newCallMark(env []string) ([]string, *callMark) {
	id, err := mark.New()
	if err != nil {
		return env, nil
	}
	return mark.Extend(env, id), &callMark{id: id}
}

// callMarkOf is, in the spawn helper, the id the Engine gave the call:
// the last element of the mark in env.
func callMarkOf(env []string) *callMark {
	for _, kv := range slices.Backward(env) {
		if v, ok := strings.CutPrefix(kv, mark.Var+"="); ok {
			if id, err := mark.Parse(v[strings.LastIndexByte(v, ':')+1:]); err == nil {
				return &callMark{id: id}
			}
			return nil
		}
	}
	return nil
}

// markLayer is the call's mark as a layer: the Engine's id for it in
// the spawn helper, else a fresh one, which the call's environment gets
// now (what the leader is born into). Nil where no id could be had.
func (c *Cmd) markLayer() callLayer {
	var m *callMark
	if inHelper {
		m = callMarkOf(c.Env) // the Engine gave the call its id
	} else {
		c.Env, m = newCallMark(c.Environ())
	}
	if m == nil {
		return nil
	}
	return m
}

// holders are the call's orphans and, once its leader's start is read,
// its marked processes: what is orphaned during the end carries the mark.
func (m *callMark) holders(t *tree) ([]end.Holder, []*end.Process, error) {
	orphans, err := m.orphans(t.pid)
	return m.holder(), orphans, err
}

// release keeps the orphans of the call that left lacks.
func (m *callMark) release(t *tree, left []int) ([]int, error) {
	orphans, err := m.orphans(t.pid)
	return m.keepNew(orphans, left), err
}

// leftHolders adds the orphans kept and, when any process was kept, the
// marked processes: what those forked since carries the call's mark.
func (m *callMark) leftHolders(hs []end.Holder) []end.Holder {
	hs = m.keeper.leftHolders(hs)
	if len(hs) > 0 {
		hs = append(hs, m.holder()...)
	}
	return hs
}

// start reads the leader's start once, while its unreaped exit (or its
// life) still holds its number: every process of the call started at or
// after it. An error (the leader's number is held, so not its end) says
// that no process can be taken for the call's by its mark.
func (m *callMark) start(leader int) error {
	if m.since == 0 {
		st, err := proc.ReadStat(leader)
		if err != nil {
			return err
		}
		m.since, m.leader = st.StartTime, leader
	}
	return nil
}

// holder is the call's marked processes as a holder of the end: a look
// or a signal first reads the children of this process and its
// ancestors (adopted), and only when one carries the call's mark scans
// /proc, signalling each process through a pidfd of it just verified
// (this user's, started after the leader, the call's id in its mark).
// Before adopted finds one, every process of the call has a live parent
// of the call's — the leader, its group, an escapee, held by the other
// holders — so the end's last looks, made once those are empty (a
// marked holder is looked at again then), find every orphan. None
// without the leader's start.
func (m *callMark) holder() []end.Holder {
	if m.since == 0 {
		return nil
	}
	return []end.Holder{&mark.Holder{ID: m.id, Since: m.since, UID: os.Getuid(), Active: m.adopted}}
}

// orphans lists the live processes verified to carry the call's mark
// that are not in the group its leader leads, each held by the pidfd of
// its verification. It scans /proc only when a process carrying
// the mark is a child of this process or of one of its ancestors — where
// an orphan is re-parented (the nearest subreaper, or init) — so that a
// call that left no orphan costs a read of each ancestor's children, not
// a walk of every process of the host. An error says they could not be
// looked for (descriptors or memory short): some may live.
func (m *callMark) orphans(leader int) ([]*end.Process, error) {
	if err := m.start(leader); err != nil {
		return nil, fmt.Errorf("contain: look for the call's orphans: %w", err)
	}
	if !m.adopted() {
		return nil, nil
	}
	found, _, err := mark.Scan(m.id, m.since, os.Getuid(), nil)
	if err != nil {
		return nil, fmt.Errorf("contain: look for the call's orphans: %w", err)
	}
	var out []*end.Process
	for _, f := range found {
		if f.Pgrp == leader {
			sys.Close(f.Pidfd)
			continue
		}
		out = append(out, &end.Process{PID: f.PID, Pidfd: f.Pidfd})
	}
	return out, nil
}

// adopted reports whether a child of this process or of an ancestor of
// it (each one's thread-group leader, which adopts orphans while it
// lives) started after the leader and carries the call's mark, without
// verifying it: the scan that follows does. What cannot be read, but for
// a process that is gone, counts as adopted: the scan decides then.
func (m *callMark) adopted() bool {
	pid := os.Getpid()
	for n := 0; pid > 0 && n < maxAncestors; n++ {
		kids, err := proc.ThreadChildren(pid, pid)
		if err != nil && !gone(err) {
			return true
		}
		for _, kid := range kids {
			st, err := proc.ReadStat(kid)
			switch {
			case gone(err):
				continue
			case err != nil:
				return true
			case st.StartTime < m.since:
				continue
			case kid == m.leader && st.StartTime == m.since:
				continue // the call's leader, this process's child, held by its own holder
			}
			env, err := proc.ReadEnviron(kid)
			if (err == nil && mark.InEnviron(env, m.id)) || (err != nil && !gone(err) && !errors.Is(err, os.ErrPermission)) {
				return true
			}
		}
		st, err := proc.ReadStat(pid)
		if err != nil {
			return true // the chain cannot be followed: scan
		}
		pid = st.PPID
	}
	return pid > 0 // more ancestors than the bound: scan
}

// gone reports whether err means that the process read has ended.
func gone(err error) bool {
	return errors.Is(err, os.ErrNotExist) || errors.Is(err, syscall.ESRCH)
}

// maxAncestors bounds the ancestors adopted looks at.
const maxAncestors = 64
