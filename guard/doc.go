// Package guard holds both sides of the backstop: a small process whose one
// job is to end the Engine's process group E if the starter disappears,
// SIGKILL of the starter included.
//
// Where the kernel signals a group through a pidfd (Linux 6.9) and has
// close_range (5.9), the guard is a raw child of the starter: a fork that
// runs no Go runtime and executes nothing, only system calls (package
// internal/sys/rawfork) — one thread instead of a second Go runtime's 4-5.
// Right after the fork it gives back (MADV_DONTNEED) its copy of every
// private anonymous mapping of the starter's but its own state, kept in a
// mapping of its own, and the stack it runs on: about 100 KiB of its own
// memory instead of a copy of the starter's heap
// (TestTheRawGuardKeepsNoCopyOfTheStartersMemory). It has the same
// descriptors at the same numbers, speaks the same messages and keeps the
// same rules as the re-executed guard below, which is used before Linux 6.9
// (it pins E), in the portable build and on macOS and FreeBSD. Its command
// name is [Comm] from its first instruction; a raw guard's /proc/PID/environ
// shows the starter's environment (the memory it was forked from).
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
// pidfd, group E, and in cgroup mode the session cgroup with the cgroups
// below it) with SIGKILL in rounds until all are empty or its budget (the
// whole end's: grace + kill budget) has passed, then exits. It obeys a
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
