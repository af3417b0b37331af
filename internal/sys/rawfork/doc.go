// Package rawfork holds all the code of session-starter that runs without
// a Go runtime: the raw gate (a forked child that executes the Engine)
// and the guard's porch (a forked child that watches the starter and,
// once it is gone, strikes the session's holders before it executes the
// guard proper). Nothing else in the module may use unsafe, the nosplit
// or linkname directives, or assembly (internal/sys and its subpackages
// aside), and the layout test in package starter keeps it so.
//
// A child ([StartGate], [StartPorch]) is forked between the runtime's fork
// hooks, the shape of package syscall's own fork-exec child: it has its
// own copy of the parent's memory and never runs beside the parent in
// shared memory. From the fork on it runs only functions of this package
// that never allocate, grow the stack, take a lock or enter the
// scheduler (//go:nosplit, //go:norace), and makes system calls only
// through rawSyscall6, an assembly leaf with no frame. Everything a
// child reads and writes lives in an arena mapped outside the Go heap,
// not on its stack, so that its nosplit chains fit in the stack that is
// left in every build, -gcflags='all=-N -l' (what debuggers use)
// included; no child indexes anything in a way that needs a bounds check.
//
// The raw children are used only on the toolchains and architectures
// they are proven on (Go 1.26 and 1.27, amd64 and arm64, Linux): the
// build constraint fences them as gVisor fences its linknames. Anywhere
// else, and with the build tag session_starter_noraw (the escape hatch),
// [Supported] is false and gate and guard start their binary again in a
// hidden mode instead.
package rawfork
