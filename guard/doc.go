// Package guard holds both sides of the backstop. The guard is a small
// process with one job: to end the Engine's process group E if the
// starter disappears, SIGKILL of the starter included.
//
//	starter ──> guard     own process group (never a member of E), cwd /,
//	                      stdio /dev/null; holds: a pidfd of the gate, a
//	                      pidfd of the starter, the read end of a pipe whose
//	                      write end only the starter holds
//
// What the starter can observe, and what each outcome permits:
//   - "armed PGID": the guard watches the starter and holds the session.
//     Only now may the Engine's program be executed.
//   - "refused CODE", any other line, or its exit before "armed": it
//     watches nothing, and the Engine must not be executed.
//   - Its exit with status 0 after "finish PGID": it saw every holder
//     empty itself. Before that, a finish is not obeyed, and it guards on.
//   - The starter gone (its pidfd, the pipe's end, any other line): the
//     guard ends every holder, then exits.
//
// # The porch and the guard proper
//
// The guard starts as the porch where three things hold:
//   - the kernel signals a group through a pidfd (Linux 6.9);
//   - it has close_range (5.9);
//   - the build has raw children (package internal/sys/rawfork: Go 1.26
//     and 1.27 on amd64 and arm64, without the build tag
//     session_starter_noraw).
//
// The porch is a fork of the starter that runs no Go runtime. It does only
// what must work when no runtime can start: under the pressure
// (RLIMIT_NPROC, memory) that often kills the starter. It arms. It gives
// back (MADV_DONTNEED) its copy of the starter's memory, but its own state
// and stack: about 100 KiB of its own instead of a copy of the starter's
// heap (TestTheRawGuardKeepsNoCopyOfTheStartersMemory). Then it waits.
//
// The porch obeys a valid finish at once when a cheap test shows the
// session empty:
//   - the Engine's pidfd is readable;
//   - group E is gone: the group signal 0 answers ESRCH (zombies count);
//   - the cgroup says "populated 0".
//
// Otherwise it executes the guard proper. So it does once the starter is
// gone, after its first SIGKILL strikes at every holder. The marked are
// among them, verified as the mark holder verifies them. The porch strikes
// them for as long as it finds any: a storm of escapees at the user's
// process limit leaves no room for a runtime. Each round stops them before
// it kills them, so that none forks into a slot a kill frees.
//
// The guard proper is this binary in a hidden mode. It is executed through
// a descriptor opened at arming, never a path, and checked then to speak
// this protocol. It verifies with the one end routine (package
// internal/end): the /proc look for live members, the rounds up to the
// deadline, the cgroup's removal, the terminal handed back. Where it
// cannot be executed (a seccomp profile, a runtime that cannot start),
// the porch goes on striking until the cheap test holds or the deadline.
// Then it exits, keeping the session's ledger record.
//
// Elsewhere the guard is this binary started again in the hidden guard
// mode from the start: before Linux 6.9 (the guard pins E), in the
// portable build, on macOS and FreeBSD, on other toolchains. Either form
// has the same descriptors at the same numbers, speaks the same messages
// and keeps the same rules. Its command name is "session-guard" from its
// first instruction. The porch's /proc/PID/environ shows the starter's
// environment: the memory it was forked from.
//
// # Guarantees
//
// [Guard.AwaitArmed] returns nil only once the guard watches. From then
// on, if the starter is gone, the guard ends every holder of the session
// it knows. The starter is gone when its pidfd is readable, or at the end
// of its pipe. The holders are:
//   - the Engine, through the gate's pidfd;
//   - group E;
//   - in cgroup mode, the session cgroup with the cgroups below it;
//   - given the mark, the processes that left E. On Linux in group mode
//     these are the processes that carry the mark (package
//     internal/mark). In cgroup mode the cgroup decides, never a mark a
//     stranger may have a copy of. On macOS and FreeBSD they are the
//     Engine's descendants by lineage and by the mark (package
//     internal/lineage), looked for as the end begins.
//
// It never signals itself or its pin, and only this user's processes. It
// sends SIGKILL in rounds until all holders are empty or its budget has
// passed: the whole end's, grace + kill budget. Then it exits.
//
// Given the ledger's directory (package internal/ledger) and the mark,
// it then removes the session's record. It removes it by its name
// relative to that descriptor, opened at arming, and only when its end
// reached Empty. After any other end the record stays, for a reclaim. The
// guard says so on its standard error, which the starter points at
// /dev/null.
//
// It obeys a "finish PGID" line only once it has seen all holders empty
// itself. A finish while a holder still has a live process is not
// obeyed, and the guard keeps guarding: the starter reported survivors,
// or a same-user Engine wrote it into the pipe through /proc. Any other
// line counts as "starter gone" (fail closed). Every read of the pipe
// takes only what poll showed there, while the starter is watched. So a
// partial message cannot stall the guard.
//
// Every group signal is pidfd_send_signal on the gate's pidfd with
// PIDFD_SIGNAL_PROCESS_GROUP. The kernel finds the group through the pid
// object the pidfd holds. So the signal reaches E's members whether or not
// someone else reaped the Engine (after the starter's death it is
// re-parented). And it reaches nothing once E has no member, even if the
// number E was handed out again.
//
// Before Linux 6.9, which lacks that flag, the guard first pins E. A child
// of its own, the pin, joins E while the gate is shown alive. It stays a
// member, running or a zombie the guard has not reaped. So the number E
// cannot be handed out again. The guard signals it with kill(-E) until it
// reaps the pin, after its last group signal. The guard never signals a
// number it read from /proc. It refuses to signal a group it belongs to.
//
// On macOS and FreeBSD there are no pidfds; nor in the Linux build tagged
// portable, which takes their paths. There the guard always pins E. It
// signals -E and the Engine by number only while the pin is a member of
// E: no process is given a number that is a live group's. It watches the
// starter by the finish pipe alone, whose write end only the starter
// holds. It watches the Engine by a kqueue NOTE_EXIT filter it registers
// once the pin is in E.
//
// The guard ignores HUP, INT, TERM, QUIT and TSTP and keeps guarding.
// After the starter's death its process group is orphaned, and may get
// HUP and CONT. Only SIGKILL ends it.
//
// # Failure rule
//
// AwaitArmed returns an error for a guard that is not watching. It could
// not start, or it could neither signal E through a pidfd nor pin it, or
// it found itself in E. The Engine's program must then not be executed.
package guard
