// Package launch is for launchers written in Go. [Start] starts an
// Engine under an installed session-starter. It checks the ack line
// ([ParseAck]). The [Session] it returns hands back the Engine's stdin,
// stdout and mirrored exit status. [Options] has a field for each flag a
// launcher sets: the grace, the stop signal, the timeout, the kill
// budget, the containment mode, the control and status pipes.
// [ReadEnded] reads the record of how the session ended.
//
// The package also defines the wire format any launcher reads: the ack
// line ([ParseAck]) and the records session-starter writes on
// --status-fd ([StatusStarted], [StatusEnded], and with --reclaim
// [StatusReclaimed]).
//
// It imports nothing of the supervisor: no gate, no guard, no logger. Its
// only system calls are os/exec's, and on Windows handle inheritance. It
// builds on every platform. A program that uses it links none of
// session-starter's process code (TestLaunchImportsNothingOfTheSupervisor).
//
// # Guarantees
//
// An error from Start means no session. Either session-starter exited
// before its ack, and nothing was executed ([ErrNoAck]). Or it was
// killed: its first line was not an ack ([ErrMalformedAck]), or none came
// in time ([ErrAckTimeout]). Its guard then ends anything it had started.
//
// A [Session]'s Wait returns session-starter's status, which mirrors the
// Engine's. It returns within the wait delay of a stop. By default that
// is [DefaultWaitDelay]: the whole end's bound plus five seconds. With a
// grace or a kill budget, it is derived from them.
package launch
