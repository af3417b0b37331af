package sys

import (
	"encoding/binary"
	"fmt"
)

// UniqueIDs are macOS's 64-bit unique process ids of a process and of
// its parent, from proc_pidinfo's PROC_PIDUNIQIDENTIFIERINFO. XNU gives
// each process at fork a unique id that no other process of the same
// boot ever has (a counter, incremented at each fork, never reused,
// unlike the PID; exec keeps it), and records its parent's unique id then
// and again at each exec (the parent it has at that moment):
// p_puniqueid is kept when the parent dies and launchd adopts the
// orphan, while its PPID becomes 1, until the orphan execs. Version is
// p_idversion, which XNU draws from one counter at every fork and again
// at every exec: the process with that PID and version is this one,
// running that program ([SignalIdentified]).
type UniqueIDs struct {
	Unique, Parent uint64
	Version        int32
}

// uniqInfoSize is the size of struct proc_uniqidentifierinfo of XNU's
// <sys/proc_info.h> (<sys/proc_info_private.h> in newer releases):
// uint8_t p_uuid[16], uint64_t p_uniqueid at 16, uint64_t p_puniqueid at
// 24, int32_t p_idversion at 32, then p_orig_ppidversion and two
// uint64_t reserved words (older releases: a 32-bit and three 64-bit
// reserved words), 56 bytes either way.
const uniqInfoSize = 56

// decodeUniqInfo decodes a struct proc_uniqidentifierinfo (little-endian,
// as both macOS ports are) of which the call wrote n bytes: anything but
// the whole structure, or a unique id of 0 (which no process has), is an
// error.
func decodeUniqInfo(b []byte, n int) (UniqueIDs, error) {
	if n != uniqInfoSize || len(b) < uniqInfoSize {
		return UniqueIDs{}, fmt.Errorf("proc_pidinfo PROC_PIDUNIQIDENTIFIERINFO: %d bytes, want %d", n, uniqInfoSize)
	}
	le := binary.LittleEndian
	ids := UniqueIDs{Unique: le.Uint64(b[16:]), Parent: le.Uint64(b[24:]), Version: int32(le.Uint32(b[32:]))}
	if ids.Unique == 0 {
		return UniqueIDs{}, fmt.Errorf("proc_pidinfo PROC_PIDUNIQIDENTIFIERINFO: unique id 0")
	}
	return ids, nil
}
