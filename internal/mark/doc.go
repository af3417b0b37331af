// Package mark is the session mark: one variable in the Engine's
// environment, [Var], whose value lists the sessions a process belongs
// to, outermost first, as 128-bit ids in hexadecimal separated by ":". A
// session adds its own id to what it inherited ([Extend]); every
// descendant of the Engine inherits the mark unless it scrubs its
// environment. The mark is for discovery: [Scan] finds the live processes
// that carry a session's id, and only those that it can verify.
//
// # Guarantees
//
// A process is reported found only when its mark was read back off the
// live process itself: a pidfd of it was open before its /proc files were
// read, and showed no exit after (the PID named that process throughout),
// its environment (not its command line) carries the id as one whole
// element of [Var], it started at or after the session's start (clock
// ticks since boot, which no clock step moves), and it belongs to the
// caller's user. [Holder] signals only through such pidfds.
//
// # Failure rule
//
// What cannot be verified — an environment that cannot be read, another
// user's process — is never signalled: Scan returns it as left, with the
// reason. Where processes cannot be read or signalled this way (no pidfds:
// macOS, FreeBSD, the portable build), Scan fails with an error wrapping
// [errors.ErrUnsupported], never an empty success.
package mark
