// Package exit is the end of a session-starter process: the process a
// launcher started in place of its Engine. [Main] holds the session with
// [starter.Run]. Around it, Main does what only a whole process may do:
//   - it writes the ack line on standard output;
//   - it releases its own standard input and output, the launcher's
//     other descriptors and its working directory once the Engine runs;
//   - it reports each failure as one plain line "session-starter: …" on
//     standard error.
//
// [Apply] then ends the process as the session's [starter.Verdict] says.
// Where the Engine's signal can be mirrored, the process dies of it; else
// it exits with a status. The command (cmd/session-starter) and a Go
// Engine's requested form (package starter/contain) both end through
// here.
//
//	func main() {
//		starter.RunHidden(os.Args) // the gate and the guard, first
//		exit.Apply(exit.Main(context.Background(), opts, true))
//	}
//
// It lives above package starter, which it wraps. [starter.Run] changes
// nothing of its process (its stdio, its exit), so that what does change
// them is here alone.
//
// # Guarantees
//
// The launcher sees end of file on the Engine's standard output exactly
// when the Engine's processes have all closed it. As the Engine is
// released, Main points this process's standard input and output at
// /dev/null (NUL on Windows). On Unix it does the same with standard
// error when that is the same pipe or socket as standard output
// (TestLauncherReadsEOFWhileTheTreeRunsAfterClosingStdout,
// TestLauncherReadsEOFWithStderrMergedIntoStdout).
//
// On Unix the same holds for every other descriptor the launcher passed,
// but the control and status descriptors. Main closes them as the Engine
// is released (TestAPipePassedAsFD5ReadsEOFWhenTheEngineClosesItsCopy).
// It then moves this process to /, so that it keeps no mount busy. The
// guard does the same from its start
// (TestTheStarterAndTheGuardWorkInTheRootOnceTheEngineRuns).
//
// A report that cannot be written costs the report, never the exit
// status: the launcher may have closed the pipe
// (TestAClosedStderrCostsTheReportsNotTheSession). A launcher that does
// not read its end of the pipe holds the exit at most 100 ms. The report
// is then dropped (TestAnUndrainedStderrDoesNotHoldTheExit).
//
// On Linux, Apply mirrors a signal death without a core file or a Go
// traceback (TestSignalDeathsAreMirroredWithoutCore). As PID 1 of a PID
// namespace it exits 128+S instead: the kernel drops a signal an init
// sends itself. On macOS and FreeBSD, a signal the Go runtime handles
// itself may still end it otherwise (the manual's Limits). Windows has no
// signals: Apply exits with the code.
//
// # Failure rule
//
// Whatever keeps Main from holding the session is a Verdict with its
// exit status and a report, never a silent exit. That includes a
// /dev/null that cannot be opened, an ack that cannot be written and any
// error of [starter.Run]. The status is 125 when containment could not
// be established, and then the Engine never ran.
//
// Nothing here is for a library: Main changes this process's standard
// descriptors, and Apply does not return.
package exit
