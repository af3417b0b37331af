package starter

import (
	"os"

	"github.com/session-starter/session-starter/internal/ledger"
)

// record writes the session's ledger record (package internal/ledger),
// once the guard is armed and before the Engine's program is executed, so
// that a reclaim can end what the session leaves should the starter and
// the guard both be SIGKILLed. Without the mark there is nothing to find
// the session's processes by, and no record. A failure is logged: the
// session runs, and that reclaim cannot.
func (s *session) record() {
	if s.mark == nil {
		return
	}
	dir, err := ledger.Dir()
	if err != nil {
		s.log.Info().Err(err).Msg("no ledger record: a reclaim cannot end what this session leaves")
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
	if s.cg != nil {
		r.Cgroup = &ledger.Cgroup{Dir: s.cg.Dir, ID: s.cg.ID}
	}
	if err := ledger.Write(dir, r); err != nil {
		s.log.Info().Err(err).Msg("no ledger record")
		return
	}
	s.ledger = dir
}

// unrecord removes the session's ledger record, unless the guard keeps
// guarding survivors (the session is not over).
func (s *session) unrecord() {
	if s.ledger == "" || s.keepRecord {
		return
	}
	if err := ledger.Remove(s.ledger, s.mark.String()); err != nil {
		s.log.Warn().Err(err).Msg("ledger record left")
	}
	s.ledger = ""
}
