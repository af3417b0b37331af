// Package proc reads /proc: a process's stat line, the live members of a
// process group, the descriptors a process holds, and whether /proc belongs
// to this process's PID namespace. On macOS and FreeBSD the same questions
// are asked of sysctl kern.proc, and the descriptors of fcntl; there a
// process's environment is read too (kern.procargs2 on macOS, its argv
// skipped by count; kern.proc.env on FreeBSD), and the whole process table
// in one read. Both kernels' kinfo_proc records and macOS's procargs blob
// are decoded by untagged code, tested on every platform.
//
// Parsers take bytes and are split from the reads, so they are tested on
// captured and hostile input: a command name may hold spaces, parentheses
// and newlines, and the stat line is split at its last ')'.
//
// A read that fails because the process ended in between is not an error
// of a scan: that process is simply no longer there. Every other failure is
// returned, never skipped, because a scan that silently missed a member
// would let a caller report a group empty that is not.
package proc
