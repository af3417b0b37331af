// Package launch is for launchers written in Go: it starts an Engine under
// an installed session-starter ([Start]), checks its ack line
// ([ParseAck]), and hands back the Engine's stdin, stdout and mirrored
// exit status ([Session]). [Options] has a field for each flag a launcher
// sets (the grace, the stop signal, the timeout, the kill budget, the
// containment mode, the control and status pipes), and [ReadEnded] reads
// the record of how the session ended. It also defines the wire format
// any launcher reads: the ack line ([Ack]), the records session-starter
// writes on --status-fd ([StatusStarted], [StatusEnded], and with
// --reclaim [StatusReclaimed]), and durations
// as session-starter reads them ([ParseDuration]).
//
// It imports nothing of the supervisor (no gate, no guard, no logger, no
// system-call layer beyond os/exec and, on Windows, handle inheritance),
// builds on every platform, and a program that uses it links none of
// session-starter's process code (TestLaunchImportsNothingOfTheSupervisor).
//
// # Guarantees
//
// An error from Start means no session: session-starter exited before
// its ack (nothing was executed; [ErrNoAck]), or it was killed because its
// first line was not an ack ([ErrMalformedAck]) or none came in time
// ([ErrAckTimeout]), in which case its guard ends anything it had started.
// A [Session]'s Wait returns session-starter's status, which mirrors the
// Engine's, within [Options]'s wait delay of a stop (by default
// [DefaultWaitDelay], the whole end's bound plus five seconds; with a
// grace or a kill budget, derived from them).
package launch
