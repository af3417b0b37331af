// Package lineage finds the processes a session left behind where the
// kernel offers no subreaper and no cgroup to hold them (macOS, and
// FreeBSD without a reaper): the Engine's descendants that left its
// process group — a setsid, a double fork — and live on after it.
//
// Discovery goes by identity over snapshots of the process table. A
// process is named by an [Identity]: on macOS its 64-bit unique id, which
// no other process of the boot ever has; on FreeBSD its PID with its
// start time. Starting from the Engine's identity, every process whose
// parent's identity is one already found is a descendant (macOS records
// the parent's unique id at fork, and at exec the parent's then, and keeps
// it when launchd adopts the orphan; FreeBSD's parent is seen by PID while
// it lives. Either way a chain is followed only through parents seen
// alive when the end begins, or, on macOS, the Engine: an orphan that
// execs after its parent died names launchd as its parent). A process
// that carries the session's mark in its environment, read off it where
// the kernel lets it be read, and that started after the Engine, is a
// second source.
// Passes over fresh snapshots repeat until one finds nothing new: a
// process forked during a pass is found by the next. The end of a session
// sweeps, and so does its guard once the starter is gone: the guard is
// given the Engine's identity as a number ([Token]) and excludes itself
// and its pin ([Excluding]).
//
// # Guarantees
//
// A PID alone is never signalled: right before each signal the process
// is opened (an exit watch registered on it), read again, and signalled
// only if the fresh read has the identity found, of the session's user,
// and the watch shows no exit since. The parent PID, and PPID == 1 in
// particular, is never a predicate: a process is a descendant by its
// parent's identity alone. Processes of other users are never signalled;
// they are reported, as is a descendant whose identity cannot be read
// again.
//
// # Limits
//
// On macOS 14.4 and later the signal goes with the PID version read with
// the unique id, and the kernel signals only the process that has both
// (proc_signal_with_audittoken): no reused number is signalled. Elsewhere
// (older macOS, FreeBSD) the kernel pins no number: what is left is the
// moment between the last look at the exit watch and the kill, in which
// the process would have to exit, be reaped by its parent, and its PID be
// handed to a new process. On FreeBSD a descendant whose parent exited
// before any pass saw both is found only by its mark.
package lineage
