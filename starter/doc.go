// Package starter holds one session: it starts the Engine behind a
// readiness gate in a new process group, arms a guard on that group,
// watches the Engine, the launcher, the control descriptor and stop
// signals, then ends the group — SIGKILL until no live member is left —
// and returns how the Engine ended.
//
//	launcher ── starts ──> starter (Run)     the launcher's group/session
//	                        ├── guard          own group; ends E if the starter is gone
//	                        └── gate → Engine  leader of a NEW group E; the
//	                              └── …        starter's child, unreaped until
//	                                           E has no live member
//
// # Guarantees
//
// The Engine's program is executed only once the gate leads its own group
// E and the guard is armed on E, so there is no instant at which an Engine
// runs and nothing would end it, whenever the starter is killed.
//
// [Run] returns only after E has no live member ([end.Empty]), or with
// a Result that says it could not be observed ([end.Unconfirmed]) or
// that members survived ([end.Survivors], [end.Refused]).
//
// Every signal to E goes through the gate's pidfd with
// PIDFD_SIGNAL_PROCESS_GROUP (Linux 6.9), which names E's pid object, not
// its number, so no signal can reach a reused number whether or not the
// Engine was reaped. On an older kernel the starter sends kill(-E), and
// only while the Engine is its unreaped child, whose zombie keeps the
// number E allocated; the guard pins E with a child of its own (package
// guard). The starter refuses to signal its own group or the guard's.
//
// Each end condition is noticed when it happens — a pidfd or the control
// descriptor becoming readable in poll, a signal on a channel — never by a
// polling tick. Only the wait for a SIGKILLed group to empty polls /proc,
// with a short backoff (package groupend says why).
//
// Run never redirects the caller's stdio, never exits or dies, restores
// the signal handling and descriptor flags it changed, and leaves the
// Engine's exit status to the caller: [Main] adds the release of stdio,
// the failure reports and the mirroring of the status.
//
// # Failure rule
//
// Whatever keeps containment from being shown — a gate that does not lead
// its group, a guard that does not arm, a kernel without
// PIDFD_SIGNAL_PROCESS_GROUP, a /proc of another PID namespace — is an
// error with exit status 125, and the Engine's program was not executed.
package starter
