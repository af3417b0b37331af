// Package starter holds one session. It starts the Engine behind a
// readiness gate in a new process group, and arms a guard on that group.
// It watches the Engine, the launcher, the control descriptor and stop
// signals. Then it ends every holder of the session under one deadline:
// the Engine, its group, the processes that left it, the session cgroup.
// It returns how the Engine ended.
//
//	launcher ── starts ──> starter (Run)     the launcher's group/session
//	                        ├── guard          own group; ends E if the starter is gone
//	                        └── gate → Engine  leader of a NEW group E; the
//	                              └── …        starter's child, unreaped until
//	                                           E has no live member
//
// # Guarantees
//
// The Engine's program is executed only once the gate leads its own group
// E and the guard is armed on E. So there is no instant at which an Engine
// runs and nothing would end it, whenever the starter is killed.
//
// [Run] returns only after every holder of the session has no live
// process: Result.End is empty. Or it returns a Result that says the end
// could not be observed (unconfirmed), or that processes survived
// (survivors, refused).
//
// The end is bounded. It takes at most the grace + the kill budget +
// [launch.EndSlack], whatever the holders do: an Engine that cannot be
// killed is reported, not waited for. The Engine is reaped by one owner,
// within that bound. Every holder is signalled at the same moment: with a
// grace, the stop signal and SIGCONT; then SIGKILL in rounds.
//
// Every signal to E goes through the gate's pidfd with
// PIDFD_SIGNAL_PROCESS_GROUP (Linux 6.9). It names E's pid object, not its
// number, so no signal can reach a reused number, whether or not the
// Engine was reaped. On an older kernel the starter sends kill(-E), and
// only while the Engine is its unreaped child: its zombie keeps the number
// E allocated. The guard pins E with a child of its own (package guard).
// The starter refuses to signal its own group or the guard's.
//
// On macOS and FreeBSD, which have no pidfds, that older path is the only
// one. Every signal goes by number: to the Engine, and to -E while the
// Engine is the starter's unreaped child. Each exit is told by a kqueue
// EVFILT_PROC/NOTE_EXIT filter, polled with the other descriptors.
//   - On FreeBSD the starter is the reaper of the Engine's tree (mode
//     "reaper").
//   - On macOS there is no subreaper (mode "group").
//   - The processes that left group E are found at the end by lineage
//     (package internal/lineage): by unique process id, verified again
//     right before each signal. Another user's process, or one that cannot
//     be verified, is reported, never signalled.
//
// Each end condition is noticed when it happens, never by a polling tick:
// a pidfd or the control descriptor becomes readable in poll, a signal
// arrives on a channel. Only the wait for a SIGKILLed group to empty polls
// /proc, with a short backoff: nothing announces a group's last exit.
//
// Run never redirects the caller's stdio, and never exits or dies. It
// restores the descriptor flags it changed and the signal handling,
// unless [Options.Exits] says the process exits right after. It leaves the
// Engine's exit status to the caller. [Result.Verdict] says what the
// session-starter process does with it. The end of such a process (the
// command's, and a Go Engine's requested form) adds the release of stdio,
// the failure reports and the mirroring of the status.
//
// # Packages by audience
//
// An SDK author imports two packages. A launcher written in Go uses
// package starter/launch: it starts the session-starter binary and reads
// its ack line and status records, and imports nothing of the supervisor.
// A Go Engine uses package starter/contain: the requested form, and
// contained calls.
//
// This package is the supervisor of the session-starter process, and is
// no library entry point. Run makes the calling process a session's
// starter. Its binary must dispatch the hidden modes first, since the
// gate and the guard are started from it. It must start no other
// children where it adopts orphans. A process like that is a
// session-starter: the command, or a Go Engine's requested form
// (contain.IfRequested). Both hold their session through package
// internal/exit, which wraps Run. So this package exports what those two
// need: Run with its options and result, and [RunHidden] for the hidden
// modes.
// ExplainContainment and ExplainLimits take Run's decisions with nothing
// started, for the command's --explain. The gate and the guard (packages
// gate and guard) are the starter's helpers.
//
// # What it stops, and what not
//
// The design holds against accidents:
//   - a crash or SIGKILL of any of session-starter's processes (the
//     starter, the guard, the gate) at any instant;
//   - careless programs: daemons that double-fork or call setsid, children
//     that ignore SIGTERM or SIGHUP, a process that stops itself;
//   - a launcher that dies or forgets the session;
//   - PID reuse: no signal reaches a process that merely took a number
//     that was ours.
//
// It does not hold against an Engine that means to escape. The Engine runs
// with the launcher's user ID, and so may signal every process of the
// session. One that SIGSTOPs the starter, SIGKILLs the guard and then the
// starter is ended by nothing, and neither is any process of its tree. A
// root Engine can also move itself out of the session cgroup. Containing
// such an Engine needs a boundary it cannot cross: another user ID, a PID
// namespace (bwrap --unshare-pid), or a cgroup it cannot write (a systemd
// unit).
//
// # The Engine leads its group
//
// The Engine is the leader of group E, so it cannot call setsid(): the
// kernel refuses a group leader with EPERM. A child that a program starts
// and that calls setsid is not a leader, and is not refused: most SDKs'
// "new session" options do that. A program that must lead a new session
// (to drop the controlling terminal, say) forks first and calls setsid in
// the child, as daemon(3) does. As a command line, `setsid -w PROGRAM`
// (util-linux) forks when it leads its group, and waits. So the session
// and its exit status are still PROGRAM's.
//
// # Windows
//
// On Windows a kill-on-close job object holds the session. The job is
// the gate and the guard at once (package winjob).
//   - The Engine is created suspended inside it
//     (PROC_THREAD_ATTRIBUTE_JOB_LIST). Where that attribute is refused, it
//     is assigned while still suspended.
//   - The ack is written, and only then is the Engine resumed. So no
//     Engine output precedes the ack.
//   - No breakaway is allowed, and the job's handle is never inherited.
//     When this process ends in any way, the system closes the job's last
//     handle and ends every process in it.
//
// The ends are:
//   - the Engine's exit (a wait on its handle);
//   - the launcher's exit (a SYNCHRONIZE handle, opened at start and
//     checked against PID reuse by its creation time);
//   - end of input on the control handle;
//   - the timeout;
//   - Ctrl-C, Ctrl-Break or closing the console.
//
// The end terminates the job (TerminateJobObject, exit code 1). The job's
// completion port tells that no process is left. With a grace,
// CTRL_BREAK_EVENT goes first to the Engine's console process group. That
// group is created with CREATE_NEW_PROCESS_GROUP, which also turns off
// Ctrl-C in the Engine until it turns it back on. Where no console is
// shared with the Engine, no event can be sent, and the job is terminated
// at once. That is a launcher without a console, such as an IDE; the
// Engine then gets CREATE_NO_WINDOW. The ack line, flags, exit statuses
// and status records are those of Linux, with mode "job". The control and
// status descriptors are handle values the launcher made inheritable.
//
// # Failure rule
//
// Whatever keeps containment from being shown is an error with exit
// status 125, and the Engine's program was not executed. That includes a
// gate that does not lead its group, a guard that does not arm, a kernel
// without PIDFD_SIGNAL_PROCESS_GROUP and a /proc of another PID namespace.
package starter
