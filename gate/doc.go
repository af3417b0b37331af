// Package gate holds both sides of the readiness gate: the process that
// becomes the Engine, but executes the Engine's program only when the
// starter says so.
//
//	starter ── Spawn ──> gate        leader of a NEW process group E,
//	   │                              waits in "ready", has executed nothing
//	   ├── (arms the guard on E)
//	   └── Release ─────> gate ── execve ──> Engine (same PID, same group)
//
// A gate is made one of two ways, with the same messages and rules:
//
//   - raw (Linux with close_range, 5.9): a fork of the starter that runs
//     no Go runtime of its own, only raw system calls between the runtime's
//     fork hooks, as package syscall's own fork-exec child does: no second
//     runtime start on the way to the Engine's exec, no threads or heap of
//     its own while it waits. It has its own copy of the starter's memory
//     from the fork on and never runs beside the starter in shared memory.
//     In cgroup mode it is born in the session cgroup (clone3 with
//     CLONE_INTO_CGROUP, Linux 5.7), or, where that is refused or the
//     kernel killed such a child at birth, forked plainly and joins it by
//     writing the session cgroup's cgroup.procs. Before it waits it
//     closes every descriptor but the Engine's and its own two pipes, so
//     that nothing of the starter's — the write end of its own go-ahead
//     pipe above all — keeps it waiting once the starter is gone; before
//     its execve it puts back the open-files limit the process started
//     with (package syscall raised the soft one; internal/sys/rlimit read it
//     first).
//   - re-executed (every other case, and [Spec.ReExec]): the starter's own
//     binary started again in a hidden mode (a hidden-mode argument first).
//     The Engine's program, argv and environment reach it in a memfd, and
//     the gate itself runs with an empty environment: its own execve takes
//     no room from the Engine's (ARG_MAX bounds argv and environment
//     together), so any Engine command line with which the starter could be
//     executed fits, and the Engine's environment does not steer the gate's
//     Go runtime.
//
// Either gate calls itself "session-gate" until it executes the Engine. The
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
// is an error from [Spawn] or [Gate.AwaitReady], and nothing was
// executed.
package gate
