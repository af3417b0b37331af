// Package gate holds both sides of the readiness gate. The gate is the
// process that becomes the Engine. It executes the Engine's program only
// when the starter says so.
//
//	starter ── Spawn ──> gate        leader of a NEW process group E,
//	   │                              waits in "ready", has executed nothing
//	   ├── (arms the guard on E)
//	   └── Release ─────> gate ── execve ──> Engine (same PID, same group)
//
// What the starter can observe, and what each outcome permits:
//   - "ready PID": the gate leads its own process group and has executed
//     nothing. Only after it, with the guard armed on that group, may the
//     starter send the go-ahead.
//   - "go PID": the one line that lets the gate execute. Any other line,
//     or the pipe's end (the starter gone), makes it exit unexecuted.
//   - An exec error comes back as its errno: nothing was executed.
//   - A gate that ends before "ready" executed nothing. One the kernel
//     killed at birth ([ErrKilledAtBirth]) may be spawned again.
//
// A gate is made one of two ways, with the same messages and rules.
//
// The raw gate (Linux with close_range, 5.9) is a fork of the starter
// that runs no Go runtime of its own. It makes only raw system calls
// between the runtime's fork hooks, as package syscall's own fork-exec
// child does. So no second runtime starts on the way to the Engine's
// exec, and the gate has no threads or heap of its own while it waits.
// From the fork on it has its own copy of the starter's memory; it never
// runs beside the starter in shared memory.
//   - In cgroup mode it is born in the session cgroup (clone3 with
//     CLONE_INTO_CGROUP, Linux 5.7).
//   - Where that is refused, or the kernel killed such a child at birth,
//     it is forked plainly and joins the cgroup through its cgroup.procs.
//   - Before it waits, it closes every descriptor but the Engine's and
//     its own two pipes. Nothing of the starter's then keeps it waiting
//     once the starter is gone: above all, not the write end of its own
//     go-ahead pipe.
//   - Before its execve it puts back the open-files limit the process
//     started with. Package syscall raised the soft one;
//     internal/sys/rlimit read it first.
//
// The re-executed gate (every other case, and [Spec.ReExec]) is the
// starter's own binary started again in a hidden mode.
//   - The Engine's program, argv and environment reach it in a memfd.
//   - The gate itself runs with an empty environment. Its own execve
//     takes no room from the Engine's: ARG_MAX bounds argv and
//     environment together. So any Engine command line the starter could
//     be executed with fits.
//   - The Engine's environment does not steer the gate's Go runtime.
//
// Either gate calls itself "session-gate" until it executes the Engine.
// The Engine's signal mask is the starter's thread's. The signals the
// starter handles are at their default, as after package syscall's
// fork-exec.
//
// # Guarantees
//
// [Gate.AwaitReady] returns nil only once the gate has shown that it
// leads its own process group. The starter checks the same from outside:
// getpgid of the gate is the gate's PID.
//
// The Engine's program is never executed before [Gate.Release]. If the
// starter is gone first, the gate exits without executing anything: the
// go-ahead pipe ends, or carries anything but the exact go-ahead. An
// execve failure comes back as an error that wraps its errno.
//
// The Engine gets the descriptors named in [Spec.Files] at their own
// numbers, and nothing else of the gate's or the starter's. The gate's
// own pipes are close-on-exec before the go-ahead is read.
//
// # Failure rule
//
// Whatever cannot be shown is an error from [Spawn] or [Gate.AwaitReady],
// and nothing was executed: the group leadership, the ready message.
package gate
