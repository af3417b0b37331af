// Package rlimit records the soft and hard RLIMIT_NOFILE this process was
// started with, before the Go runtime raises the soft one.
//
// Package syscall raises the soft limit to the hard limit less one in its
// init, and keeps the original where only its own fork-exec can reach it.
// A child made without that fork-exec (the raw gate) needs the original to
// give the Engine what its launcher set. This package imports nothing, so
// by the language's initialization order (the first package in import path
// order whose imports are initialized comes first) its init runs before
// that of syscall, whose import path sorts after it and which has imports
// of its own; the read is one raw system call in assembly.
//
// [Original] reports whether a record exists; where this package has no
// assembly for the architecture there is none, and a caller must not
// guess the limit.
package rlimit
