// Package sys wraps the system calls session-starter needs over
// golang.org/x/sys/unix: each wrapper retries EINTR where the call may be
// interrupted, names the failed call in its error, and turns the errnos
// that are expected outcomes into sentinels ([ErrGone] for a process or
// group that no longer exists, [ErrNoGroupSignal] for a kernel without
// group signals through a pidfd).
//
// A process is acted on through its exit descriptor ([WatchExit]): a pidfd
// on Linux, signalled through; on macOS and FreeBSD (and in the Linux build
// tagged portable) a kqueue NOTE_EXIT filter (a pidfd, polled only, on
// Linux), with signals by number only where the caller pins the number
// ([Pidless]).
//
// On Windows it wraps golang.org/x/sys/windows, each wrapper naming the
// failed call: the job object, completion port and process calls of the
// session's job, the handle, file, event and console calls of the
// starter, and the few kernel32 calls that golang.org/x/sys/windows does
// not wrap.
//
// Code that runs without the Go runtime — the raw gate and the guard's
// porch, forked children — is in the subpackage rawfork, and the record
// of the open-files limit the process started with (read before package
// syscall raises it) in rlimit: below internal/sys is the only place of
// the module for unsafe, //go:nosplit, go:linkname and assembly.
//
// Nothing here decides policy: what may be signalled, and when, is the
// business of the callers.
package sys
