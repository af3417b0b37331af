// Package guard holds both sides of the backstop: a small process whose one
// job is to end the Engine's process group E if the starter disappears,
// SIGKILL of the starter included.
//
// Where the kernel signals a group through a pidfd (Linux 6.9), has
// close_range (5.9) and the build has raw children (package
// internal/sys/rawfork: Go 1.26 and 1.27 on amd64 and arm64, without the
// build tag session_starter_noraw), the guard starts as the porch: a fork
// of the starter that runs no Go runtime and does only what must work
// when none can start — under the pressure (RLIMIT_NPROC, memory) that
// often kills the starter. It arms, gives back (MADV_DONTNEED) its copy of
// the starter's memory but its own state and stack (about 100 KiB of its
// own instead of a copy of the starter's heap:
// TestTheRawGuardKeepsNoCopyOfTheStartersMemory), and waits. A valid
// finish it obeys at once when a cheap test shows the session empty (the
// Engine's pidfd readable, group E gone — the group signal 0 answers
// ESRCH, zombies count —, the cgroup's "populated 0"); otherwise, and once
// the starter is gone after its first SIGKILL strikes at every holder
// (the marked among them, verified as the mark holder verifies them, and
// for as long as it finds any: a storm of escapees at the user's process
// limit leaves no room for a runtime), it executes the guard proper: this binary in a hidden mode, through a
// descriptor opened at arming, never a path, and checked then to speak
// this protocol. The guard proper verifies with the one end routine
// (package internal/end): the /proc look for live members, the rounds up
// to the deadline, the cgroup's removal, the terminal handed back. Where
// the guard proper cannot be executed (a seccomp profile, a runtime that
// cannot start) the porch goes on striking until the cheap test holds or
// the deadline, and exits, keeping the session's ledger record. Elsewhere — before Linux 6.9 (the guard pins
// E), in the portable build, on macOS and FreeBSD, on other toolchains —
// the guard is this binary started again in the hidden guard mode from
// the start. Either has the same descriptors at the same numbers, speaks
// the same messages and keeps the same rules. Its command name is "session-guard"
// from its first instruction; the porch's /proc/PID/environ shows the
// starter's environment (the memory it was forked from).
//
//	starter ──> guard     own process group (never a member of E), cwd /,
//	                      stdio /dev/null; holds: a pidfd of the gate, a
//	                      pidfd of the starter, the read end of a pipe whose
//	                      write end only the starter holds
//
// # Guarantees
//
// [Guard.AwaitArmed] returns nil only once the guard watches: from then on, if the
// starter is gone — its pidfd readable, or the end of its pipe — the guard
// ends every holder of the session it knows (the Engine through the gate's
// pidfd, group E, in cgroup mode the session cgroup with the cgroups
// below it, and given the mark the processes that left E — on Linux, in
// group mode only, those that carry the mark (package internal/mark; in
// cgroup mode the cgroup decides, never a mark a stranger may have a copy
// of), on macOS and FreeBSD the
// Engine's descendants by lineage and by the mark (package
// internal/lineage), looked for as the end begins; never the guard nor
// its pin, and only this user's) with SIGKILL in rounds until all are
// empty or its budget (the whole end's: grace + kill budget) has passed,
// then exits. Given the
// ledger's directory (package internal/ledger) and the mark, it then
// removes the session's record by its name relative to that descriptor,
// opened at arming — only when its end reached Empty; after any other end
// the record stays, for a reclaim, and the guard says so on its standard
// error (which the starter points at /dev/null). It obeys a
// "finish PGID" line only once it has seen all of them empty itself: a
// finish while a holder still has a live process — the starter reported
// survivors, or a same-user Engine wrote it into the pipe through /proc —
// is not obeyed, and the guard keeps guarding. Any other line counts as
// "starter gone" (fail closed). Every read of the pipe takes only what
// poll showed there, while the starter is watched, so a partial message
// cannot stall the guard.
//
// Every group signal is pidfd_send_signal on the gate's pidfd with
// PIDFD_SIGNAL_PROCESS_GROUP: the kernel finds the group through the pid
// object the pidfd holds, so the signal reaches E's members whether or not
// the Engine was reaped by someone else (after the starter's death it is
// re-parented), and reaches nothing once E has no member, even if the
// number E was handed out again. Before Linux 6.9, which lacks that flag,
// the guard first pins E: a child of its own (the pin) joins E while the
// gate is shown alive, and stays a member — running, or a zombie the guard
// has not reaped — so the number E cannot be handed out again, and the
// guard signals it with kill(-E) until it reaps the pin, after its last
// group signal. The guard never signals a number it read from /proc, and
// refuses to signal a group it belongs to.
//
// On macOS and FreeBSD (and in the Linux build tagged portable, which takes
// their paths) there are no pidfds: the guard always pins E, signals -E and
// the Engine by number only while the pin is a member of E (no process is
// given a number that is a live group's), watches the starter by the
// finish pipe alone, whose write end only the starter holds, and the
// Engine by a kqueue NOTE_EXIT filter it registers once the pin is in E.
//
// The guard ignores HUP, INT, TERM, QUIT and TSTP and keeps guarding
// (after the starter's death its process group is orphaned and may get
// HUP and CONT); only SIGKILL ends it.
//
// # Failure rule
//
// AwaitArmed returns an error for a guard that is not watching — it could not
// start, it could neither signal E through a pidfd nor pin it, or it
// found itself in E — and the Engine's program must then not be executed.
package guard
