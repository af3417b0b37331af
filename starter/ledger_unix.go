//go:build darwin || freebsd || linux

package starter

import (
	"os"

	"github.com/rs/zerolog"

	"github.com/session-starter/session-starter/guard"
	"github.com/session-starter/session-starter/internal/dockercli"
	"github.com/session-starter/session-starter/internal/ledger"
	"github.com/session-starter/session-starter/internal/wire"
	"github.com/session-starter/session-starter/starter/launch"
)

// ledgerLayer is the session's record in the ledger (package
// internal/ledger): what a reclaim ends should the starter and the guard
// both be SIGKILLed.
type ledgerLayer struct {
	noLayer
	dir      *os.File
	cgroup   *ledger.Cgroup // the session cgroup, or nil
	cli      *dockercli.CLI // the engine of the session's containers, or nil
	recorded bool
	err      error // why the ledger's directory could not be opened
	// keep keeps the record at the end: survivors are left, and the
	// guard keeps guarding them; it removes the record once it has ended
	// them.
	keep bool
	id   string // the session's id in the mark
	log  zerolog.Logger
}

// holdLedger adds the ledger record to the session's layers, with the
// session cgroup cg (nil in group mode) and the engine of its containers.
// Without the mark there is nothing to find the session's processes by,
// and no record.
func (s *session) holdLedger(cg *ledger.Cgroup) {
	if s.mark == nil {
		return
	}
	l := &ledgerLayer{cgroup: cg, id: s.mark.String(), log: s.log}
	for _, o := range s.layers {
		if c, ok := o.(*containerLayer); ok {
			l.cli = &c.cli
		}
	}
	s.layers = append(s.layers, l)
}

// hand opens the ledger's directory and gives the guard a descriptor of
// it: once the guard has ended a session whose starter is gone, and found
// nothing left, it removes the session's record through that descriptor,
// never through a path resolved later. The record is written into the
// same directory (ready). A directory that fails the checks is ready's
// to report.
func (l *ledgerLayer) hand(_ *session, gs *guard.Spec) {
	if l.dir == nil {
		dir, fd, err := ledger.OpenDir()
		if err != nil {
			l.err = err
			return
		}
		l.dir = os.NewFile(uintptr(fd), dir)
	}
	gs.Ledger = int(l.dir.Fd())
}

// ready writes the session's record into the directory the guard was
// given, while the guard arms and before the Engine's program is
// executed. A failure is logged: the session runs, and a reclaim cannot
// end what it leaves. With containers it fails the start: only the record
// tells the guard which engine to have stop them.
func (l *ledgerLayer) ready(s *session) error {
	err := l.err
	if err == nil {
		err = l.write(s)
	}
	switch {
	case err == nil:
		l.recorded = true
	case l.cli != nil:
		return fail(wire.ExitContainment, "--containers: no ledger record (%w): after a SIGKILL of session-starter its guard could not stop the containers", err)
	default:
		l.log.Info().Err(err).Msg("no ledger record: a reclaim cannot end what this session leaves")
	}
	return nil
}

// write writes the session's record.
func (l *ledgerLayer) write(s *session) error {
	boot, err := ledger.BootID()
	if err != nil {
		return err
	}
	r := ledger.Record{Version: ledger.Version, BootID: boot, Session: l.id, UID: os.Getuid(), Mode: s.mode,
		Created: ledger.Now(), PGID: s.gate.PID, Cgroup: l.cgroup, Containers: l.cli}
	for _, p := range []struct {
		pid, pidfd int
		to         *ledger.Process
	}{{os.Getpid(), -1, &r.Starter}, {s.guard.PID, s.guard.Pidfd, &r.Guard}, {s.gate.PID, s.gate.Pidfd, &r.Engine}} {
		// This process, and its unreaped children: the PIDs name them.
		tok, err := ledger.TokenOfPidfd(p.pid, p.pidfd)
		if err != nil {
			return err
		}
		*p.to = ledger.Process{PID: p.pid, Token: tok}
	}
	if r.NS, err = ledger.Here(); err != nil {
		// A record that names no namespace is never acted on.
		return err
	}
	return ledger.Write(int(l.dir.Fd()), r)
}

// ended keeps the record when the end left survivors or refused to
// signal: the session is not over.
func (l *ledgerLayer) ended(e End, _ *launch.Usage) {
	l.keep = e.Outcome == launch.Survivors || e.Outcome == launch.Refused
}

// close removes the session's record, unless it is kept, and closes the
// ledger's directory. The record is removed by its name relative to the
// directory's descriptor, as the guard removes it: the starter's working
// directory is / by then.
func (l *ledgerLayer) close() {
	if l.dir == nil {
		return
	}
	if l.recorded && !l.keep {
		if err := ledger.Remove(int(l.dir.Fd()), l.id); err != nil {
			l.log.Warn().Err(err).Msg("ledger record left")
		}
	}
	_ = l.dir.Close()
}
