//go:build darwin || freebsd || linux

package starter

import (
	"os"

	"github.com/session-starter/session-starter/guard"
	"github.com/session-starter/session-starter/internal/ledger"
)

// ledgerHold is the ledger's directory, opened for the guard at arming,
// or nil; closed by unrecord. recorded is set once the session's record
// is written into it.
type ledgerHold struct {
	ledgerDir *os.File
	recorded  bool
}

// guardLedger opens the ledger's directory (package internal/ledger) and
// gives the guard a descriptor of it: once the guard has ended a session
// whose starter is gone, and found nothing left, it removes the session's
// record through that descriptor, never through a path resolved later.
// The record is written into the same directory (record). Without the
// mark there is nothing to find the session's processes by, and no
// ledger; a directory that fails the checks is logged: the session runs,
// and a reclaim cannot end what it leaves.
func (s *session) guardLedger(gs *guard.Spec) {
	if s.mark == nil {
		return
	}
	if s.ledgerDir == nil {
		dir, fd, err := ledger.OpenDir()
		if err != nil {
			s.log.Info().Err(err).Msg("no ledger record: a reclaim cannot end what this session leaves")
			return
		}
		s.ledgerDir = os.NewFile(uintptr(fd), dir)
	}
	gs.Ledger = int(s.ledgerDir.Fd())
}

// record writes the session's ledger record into the directory the guard
// was given, once the guard is armed and before the Engine's program is
// executed, so that a reclaim can end what the session leaves should the
// starter and the guard both be SIGKILLed. A failure is logged: the
// session runs, and that reclaim cannot.
func (s *session) record() {
	if s.ledgerDir == nil {
		return
	}
	boot, err := ledger.BootID()
	if err != nil {
		s.log.Info().Err(err).Msg("no ledger record")
		return
	}
	r := ledger.Record{Version: ledger.Version, BootID: boot, Session: s.mark.String(), UID: os.Getuid(), Mode: s.mode, Created: ledger.Now(), PGID: s.gate.PID}
	for _, p := range []struct {
		pid int
		to  *ledger.Process
	}{{os.Getpid(), &r.Starter}, {s.guard.PID, &r.Guard}, {s.gate.PID, &r.Engine}} {
		// This process, and its unreaped children: the PIDs name them.
		tok, err := ledger.TokenOf(p.pid)
		if err != nil {
			s.log.Info().Err(err).Msg("no ledger record")
			return
		}
		*p.to = ledger.Process{PID: p.pid, Token: tok}
	}
	r.Cgroup = s.recordCgroup()
	if r.NS, err = ledger.Here(); err != nil {
		// A record that names no namespace is never acted on.
		s.log.Info().Err(err).Msg("no ledger record")
		return
	}
	if err := ledger.Write(int(s.ledgerDir.Fd()), r); err != nil {
		s.log.Info().Err(err).Msg("no ledger record")
		return
	}
	s.recorded = true
}

// unrecord removes the session's ledger record, unless the guard keeps
// guarding survivors (the session is not over; the guard removes it once
// it has ended them), and closes the ledger's directory. The record is
// removed by its name relative to the directory's descriptor, as the
// guard removes it: the starter's working directory is / by then.
func (s *session) unrecord() {
	if s.ledgerDir == nil {
		return
	}
	if s.recorded && !s.keepRecord {
		if err := ledger.Remove(int(s.ledgerDir.Fd()), s.mark.String()); err != nil {
			s.log.Warn().Err(err).Msg("ledger record left")
		}
	}
	_ = s.ledgerDir.Close()
	s.ledgerDir = nil
	s.recorded = false
}
