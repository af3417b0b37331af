//go:build darwin || freebsd || linux

package ledger

// Token names one process beyond its PID, which the kernel hands out
// again, with the record's boot id.
//
// On Linux: its start in clock ticks since boot (/proc/PID/stat field 22;
// never converted to wall time, which moves when the clock is set) and,
// where pidfds live in pidfs (Linux 6.9, on 64-bit kernels), the inode
// number of a pidfd of it, which every pidfd of that process shares and
// no other process has: compared where both have one.
//
// On macOS: its 64-bit unique id (PROC_PIDUNIQIDENTIFIERINFO), which no
// other process of the boot ever has, compared alone; Start is its start
// time (microseconds since the epoch), kept for the record. On FreeBSD:
// its start, ki_start (microseconds since the epoch), with the PID.
type Token struct {
	Start  uint64 `json:"start"`
	Pidfs  uint64 `json:"pidfs,omitempty"`
	Unique uint64 `json:"unique,omitempty"`
}
