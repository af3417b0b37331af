// Package launch is for launchers written in Go: it starts an Engine under
// an installed session-starter ([Launch]), checks its ack line
// ([ParseAck]), and hands back the Engine's stdin, stdout and mirrored
// exit status ([Session]). It also defines the wire format any launcher
// reads: the ack line ([Ack]) and the records session-starter writes on
// --status-fd ([StatusStarted], [StatusEnded]).
//
// It imports nothing of the supervisor (no gate, no guard, no logger, no
// system-call layer beyond os/exec and, on Windows, handle inheritance),
// builds on every platform, and a program that uses it links none of
// session-starter's process code (TestLaunchImportsNothingOfTheSupervisor).
//
// # Guarantees
//
// An error from Launch means no session: session-starter exited before
// its ack (nothing was executed; [ErrNoAck]), or it was killed because its
// first line was not an ack ([ErrMalformedAck]) or none came in time
// ([ErrAckTimeout]), in which case its guard ends anything it had started.
// A [Session]'s Wait returns session-starter's status, which mirrors the
// Engine's, within [LaunchOptions]'s wait delay of a stop (by default
// [DefaultWaitDelay], the whole end's bound plus five seconds).
package launch
