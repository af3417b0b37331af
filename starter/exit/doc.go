// Package exit is the end of a session-starter process: the process that
// a launcher started in place of its Engine. [Main] holds the session
// with [starter.Run] and does what only a whole process may do around
// it: the ack line on standard output, the release of its own standard
// input and output, of the launcher's other descriptors and of its
// working directory once the Engine runs, and each failure report as one
// plain line "session-starter: …" on standard error. [Apply] then ends
// the process as the session's [starter.Verdict] says: death by the
// Engine's signal where it can be mirrored, else an exit status. The
// command (cmd/session-starter) and a Go Engine's requested form (package
// starter/contain) are such processes, and both end through here.
//
//	func main() {
//		starter.RunHidden(os.Args) // the gate and the guard, first
//		exit.Apply(exit.Main(context.Background(), opts, true))
//	}
//
// It lives above package starter, which it wraps: [starter.Run] is for
// a library caller and promises to change nothing of its process (its
// stdio, its exit), so what does is here.
//
// # Guarantees
//
// The launcher sees end of file on the Engine's standard output exactly
// when the Engine's processes have all closed it: Main points this
// process's standard input and output at /dev/null (NUL on Windows) as
// the Engine is released, and on Unix its standard error too when that
// is the same pipe or socket as standard output
// (TestLauncherReadsEOFWhileTheTreeRunsAfterClosingStdout,
// TestLauncherReadsEOFWithStderrMergedIntoStdout). On Unix the same holds
// for every other descriptor the launcher passed, but the control and
// status descriptors: Main closes them as the Engine is released
// (TestAPipePassedAsFD5ReadsEOFWhenTheEngineClosesItsCopy), and moves
// this process to / then, so that it keeps no mount busy, as the guard
// does from its start (TestTheStarterAndTheGuardWorkInTheRootOnceTheEngineRuns). A report that cannot
// be written — a launcher that closed the pipe — costs the report, never
// the exit status (TestAClosedStderrCostsTheReportsNotTheSession), and a
// launcher that does not read its end of the pipe holds the exit at most
// 100 ms: the report is then dropped (TestAnUndrainedStderrDoesNotHoldTheExit).
//
// On Linux, Apply mirrors a signal death without a core file or a Go
// traceback (TestSignalDeathsAreMirroredWithoutCore); only as PID 1 of a
// PID namespace, where the kernel drops a signal an init sends itself,
// it exits 128+S instead. On macOS and FreeBSD a signal that the Go
// runtime handles itself may still end it otherwise (the manual's
// Limits); Windows has no signals, and Apply exits with the code.
//
// # Failure rule
//
// Whatever keeps Main from holding the session — /dev/null that cannot
// be opened, an ack that cannot be written, any error of [starter.Run] —
// is a Verdict with its exit status and a report, never a silent exit:
// 125 when containment could not be established, and then the Engine
// never ran. Nothing here is for a library: Main changes this process's
// standard descriptors, and Apply does not return.
package exit
