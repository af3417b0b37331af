//go:build darwin || freebsd

package starter

import "github.com/session-starter/session-starter/guard"

// ledgerHold holds nothing: no ledger is kept here.
type ledgerHold struct{}

// guardLedger gives the guard no ledger: none is kept here. (A method of
// the session through ledgerHold, as on Linux.)
func (ledgerHold) guardLedger(*guard.Spec) {}

// record writes no ledger record: the ledger (and a reclaim after a
// SIGKILL of the starter and the guard together) is Linux's for now; a
// debug line says so.
func (s *session) record() {
	if s.mark != nil {
		s.log.Debug().Msg("no ledger on this platform: a reclaim cannot end what this session leaves")
	}
}

// unrecord has no record to remove: none is written here, and s.ledger
// stays empty.
func (s *session) unrecord() { s.ledger = "" }
