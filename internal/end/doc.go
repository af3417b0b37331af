// Package end ends a session: every holder of its processes at once,
// under one deadline, with one outcome and one survivor list.
//
// A session is held by a list of [Holder]s — the Engine itself (its
// pidfd), the Engine's process group E, the processes that left E and
// were adopted by the starter ([Adopted], which the spawn helper holds
// its calls' orphans with too), the session cgroup with its child cgroups
// — or, on Windows, by the session's job object — each of which can be
// signalled safely and asked for its live members. [End] ends them all,
// in the starter and in the guard alike (the guard's porch strikes
// first, paced by the constants below):
//
//  1. the deadline is the start + the grace (when there is one) + the
//     kill budget, one for the whole end;
//  2. with a grace, the stop signal and then SIGCONT (not on Windows) go
//     to every holder at the same moment — group E first, and each live
//     process once: the holders after it leave out what a signal has
//     reached ([Reached], [OnceHolder]) — and End waits until all are
//     empty, the grace is over, or a second stop signal hurries it; a
//     stop signal no holder could send ([ErrUnsendable]) skips the grace;
//  3. SIGKILL goes to every holder at the same moment (the broadest —
//     the cgroup, group E — first), again each round
//     (the first after 50 ms, doubling up to 500 ms: a process forked
//     while the first SIGKILL was on its way gets the next), until all
//     are empty or the deadline has passed; the adopted escapees are
//     looked at at every look, and one adopted since is signalled at once,
//     not at the next round;
//  4. one [Report]: [launch.Empty], [launch.Unconfirmed],
//     [launch.Survivors] or [launch.Refused], with the live members of
//     the last look at each holder.
//
// # Guarantees
//
// End returns no later than the deadline plus one look at the holders:
// nothing in it waits without the deadline. Between looks it sleeps in
// poll on the descriptors the kernel makes ready when a holder may have
// emptied (a pidfd, cgroup.events); only a holder with no such
// descriptor — a process group, whose last member's exit nothing
// announces — is looked at again after a backoff of 250 µs doubling up
// to 20 ms. On Windows it waits on a job's completion port instead.
//
// Every holder signals only what it can name safely: a pidfd, a process
// group through the pidfd of its leader, a cgroup through its directory
// descriptor; where there are no pidfds (macOS, FreeBSD), a number only
// while the caller pins it (an unreaped child of its own, or a pin in the
// group). A PID read from /proc or cgroup.procs serves the report, or
// is signalled only through a pidfd whose identity was checked. A holder
// that finds signalling unsafe refuses, and End then reports
// [launch.Refused].
//
// # Failure rule
//
// End reports [launch.Empty] only when every holder has shown it holds no
// live process. A holder that cannot be observed makes the end
// [launch.Unconfirmed], never [launch.Empty]; one with live members at the
// deadline makes it [launch.Survivors], each named with PID, uid, state
// and command.
package end
