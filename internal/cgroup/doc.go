// Package cgroup holds a session in a cgroup v2 of its own: it finds the
// cgroup2 hierarchy and this process's cgroup, creates a fresh session
// cgroup as a child of it, holds it for the session's end ([Holder]: every
// process in it and below it, ended with cgroup.kill, emptiness told by
// "populated 0" in cgroup.events), and removes it.
//
// Where: the session cgroup is a child of the starter's own cgroup
// (/proc/self/cgroup, the "0::" line), named [Prefix] + the starter's PID +
// its start time (/proc/self/stat field 22) + a per-process sequence
// number. A child, not a sibling: the starter may always create children
// where it may write its own cgroup, and a fresh child has no controllers
// enabled below it, so moving a process into it never meets the "no
// internal processes" rule of delegated v2 trees. Nested sessions nest.
//
// Inside: the session cgroup holds no process itself. The Engine is born
// in its leaf [EngineLeaf], and each contained call in a cgroup of its own
// beside it ([MakeCall]), so that the session cgroup, holding no process,
// may enable controllers for them (the rule forbids that to a cgroup that
// holds processes); its own limits and counters cover them all.
//
// Limits ([launch.Limits], [Handle.SetLimits]) need their controllers enabled
// in the cgroup where the session cgroup is made ([Enable]); a memory
// limit needs that cgroup to hold no process, and [Enable] moves this
// process into a leaf of its own there when it is the only one.
//
// Guarantee: a session cgroup is removed only by the session that made it,
// by its guard, or by [CleanLeftovers] once it is empty and no process
// with the PID and start time of its name lives (a supervisor leaf,
// too). Concurrent sessions never remove each other's cgroups.
//
// Failure rule: every call returns an error naming the syscall and path;
// nothing is skipped silently. [Holder] reports the cgroup empty only when
// it read "populated 0". A process is signalled one by one only through a
// pidfd whose cgroup id (PIDFD_GET_INFO, Linux 6.13) is the session
// cgroup's or one below it; where that cannot be shown, it is not
// signalled.
package cgroup
