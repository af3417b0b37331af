// Package guard holds both sides of the backstop: a small process whose one
// job is to end the Engine's process group E if the starter disappears,
// SIGKILL of the starter included.
//
//	starter ──> guard     own process group (never a member of E), cwd /,
//	                      stdio /dev/null; holds: a pidfd of the gate, a
//	                      pidfd of the starter, the read end of a pipe whose
//	                      write end only the starter holds
//
// # Guarantees
//
// [Arm] returns nil only once the guard watches: from then on, if the
// starter ends without sending a complete, valid finish message first, the
// guard sends SIGKILL to E again and again until no live member is left or
// its kill budget runs out, then exits. Anything but that exact message
// followed by the end of the pipe counts as "starter gone" (fail closed).
// On a valid finish it exits without signalling anything.
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
// The guard catches HUP, INT, TERM, QUIT and TSTP and keeps guarding
// (after the starter's death its process group is orphaned and may get
// HUP and CONT); only SIGKILL ends it.
//
// # Failure rule
//
// Arm returns an error for a guard that is not watching — it could not
// start, it could neither signal E through a pidfd nor pin it, or it
// found itself in E — and the Engine's program must then not be executed.
package guard
