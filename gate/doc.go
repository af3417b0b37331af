// Package gate holds both sides of the readiness gate: the process that
// becomes the Engine, but executes the Engine's program only when the
// starter says so.
//
//	starter ── Start ──> gate        leader of a NEW process group E,
//	   │                              waits in "ready", has executed nothing
//	   ├── (arms the guard on E)
//	   └── Release ─────> gate ── execve ──> Engine (same PID, same group)
//
// A gate is made one of two ways, with the same messages and rules:
//
//   - raw (Linux with close_range, 5.9): a clone of the starter that runs
//     no Go runtime of its own, only raw system calls between the runtime's
//     fork hooks, as package syscall's own fork-exec child does: no second
//     runtime start on the way to the Engine's exec, no threads or heap of
//     its own while it waits. On amd64 it shares the starter's memory until
//     its execve (clone3 with CLONE_VM, without CLONE_VFORK), running on a
//     stack and reading data mapped outside the Go heap, so that the clone
//     copies no page table and leaves no page of the starter's
//     copy-on-write; where clone3 is refused (Docker's default seccomp
//     profile answers ENOSYS) and on other architectures it is forked. Before it waits it
//     closes every descriptor but the Engine's and its own two pipes, so
//     that nothing of the starter's — the write end of its own go-ahead
//     pipe above all — keeps it waiting once the starter is gone; before
//     its execve it puts back the open-files limit the process started
//     with (package syscall raised the soft one; internal/rlimit read it
//     first).
//   - re-executed (every other case, and [Spec.ReExec]): the starter's own
//     binary started again in a hidden mode ([Arg] as the first argument).
//     The Engine's program, argv and environment reach it in a memfd, and
//     the gate itself runs with an empty environment: its own execve takes
//     no room from the Engine's (ARG_MAX bounds argv and environment
//     together), so any Engine command line with which the starter could be
//     executed fits, and the Engine's environment does not steer the gate's
//     Go runtime.
//
// Either gate calls itself [Comm] until it executes the Engine. The
// Engine's signal mask is the starter's thread's, and the signals the
// starter handles are at their default, as after package syscall's
// fork-exec.
//
// # Guarantees
//
// [Gate.AwaitReady] returns nil only once the gate has shown that it leads its own
// process group, and the starter has checked the same from outside
// (getpgid of the gate is the gate's PID). The Engine's program is never
// executed before [Gate.Release]: if the starter is gone first — the
// go-ahead pipe ends, or carries anything but the exact go-ahead — the gate
// exits without executing anything. An execve failure comes back as its
// errno ([ExecError]).
//
// The Engine gets the descriptors named in [Spec.Files] at their own
// numbers and nothing else of the gate's or the starter's: the gate's own
// pipes are close-on-exec before the go-ahead is read.
//
// # Failure rule
//
// Whatever cannot be shown — the group leadership, the ready message —
// is an error from Start, and nothing was executed.
package gate
