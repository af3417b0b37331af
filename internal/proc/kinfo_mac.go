package proc

// macOS's struct kinfo_proc, one record of a kern.proc listing, as XNU's
// <sys/sysctl.h> lays it out on the 64-bit ports (arm64 and x86_64, the
// only ones macOS has now): a struct extern_proc of <sys/proc.h> (296
// bytes) and a struct eproc (352 bytes), 648 bytes in all. The decoding
// is here, untagged, so that every platform's tests decode records built
// from the headers; only macOS reads real ones (proc_darwin.go).
//
// Offsets, by field: extern_proc's p_un is a union whose struct timeval
// p_starttime (a 64-bit tv_sec, a 32-bit tv_usec, padded to 16) is at 0;
// char p_stat at 36; pid_t p_pid at 40 (after 3 bytes of padding);
// char p_comm[MAXCOMLEN+1] at 243. eproc starts at 296: its struct
// _pcred e_pcred (char pc_lock[72], a pointer, then uid_t p_ruid) at
// 296+16, so p_ruid at 392; after struct _ucred (76 bytes) and struct
// vmspace (64, 8-aligned), pid_t e_ppid at 560 and pid_t e_pgid at 564.
const (
	macKinfoSize = 648
	macOffStart  = 0   // struct timeval p_starttime {int64 tv_sec; int32 tv_usec}
	macOffStat   = 36  // char p_stat
	macOffPID    = 40  // pid_t p_pid
	macOffComm   = 243 // char p_comm[MAXCOMLEN + 1]
	macCommLen   = 17  // MAXCOMLEN (16) + 1
	macOffRUID   = 392 // uid_t e_pcred.p_ruid
	macOffPPID   = 560 // pid_t e_ppid
	macOffPgid   = 564 // pid_t e_pgid
)

// p_stat values of XNU's <sys/proc.h>.
const (
	macSIDL   = 1
	macSRUN   = 2
	macSSLEEP = 3
	macSSTOP  = 4
	macSZOMB  = 5
)

// macLayout is macOS's layout (little-endian, as both ports are); its
// p_stat maps to the letters of Linux's /proc stat
// ([kinfoLayout.states]). StartTime is p_starttime in microseconds since
// the epoch. Unlike FreeBSD's, the record holds no size of its own to
// check.
var macLayout = kinfoLayout{
	size: macKinfoSize, pid: macOffPID, ppid: macOffPPID, pgid: macOffPgid, ruid: macOffRUID,
	start: macOffStart, stat: macOffStat, comm: macOffComm, commLen: macCommLen, usec32: true,
	states: map[byte]byte{macSIDL: 'I', macSRUN: 'R', macSSLEEP: 'S', macSSTOP: 'T', macSZOMB: 'Z'},
}
