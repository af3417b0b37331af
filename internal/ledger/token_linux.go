package ledger

import (
	"cmp"
	"sync/atomic"

	"github.com/session-starter/session-starter/internal/proc"
	"github.com/session-starter/session-starter/internal/sys"
)

// pidfsMagic is the f_type of pidfs (PID_FS_MAGIC, "PIDF").
const pidfsMagic = 0x50494446

// TokenOfPidfd returns pid's token, read through pidfd, a pidfd of pid
// the caller holds, or -1: one is then opened and closed. Call it only
// for a process the PID is known to name (this process, an unreaped
// child of it).
func TokenOfPidfd(pid, pidfd int) (Token, error) {
	st, err := proc.ReadStat(pid)
	if err != nil {
		return Token{}, err
	}
	return Token{Start: st.StartTime, Pidfs: inodeOf(pid, pidfd)}, nil
}

// inodeOf is pid's pidfs inode, read through pidfd, or where pidfd is -1
// through a pidfd opened and closed here; 0 where there is none.
func inodeOf(pid, pidfd int) uint64 {
	if pidfd < 0 {
		fd, err := sys.PidfdOpen(pid)
		if err != nil {
			return 0
		}
		defer sys.Close(fd)
		pidfd = fd
	}
	return pidfsInode(pidfd)
}

// pidfdFS is the f_type of the filesystem of pidfds, once one was read.
// A kernel makes every pidfd in one filesystem: one fstatfs tells for all.
var pidfdFS atomic.Int64

// pidfsInode is the pidfs inode of the pidfd fd, or 0 where pidfds are
// not in pidfs (before Linux 6.9; 32-bit kernels, whose inode numbers
// would not be unique, keep anonymous inodes).
func pidfsInode(fd int) uint64 {
	if pidfdFS.Load() == 0 {
		fs, _ := sys.Fstatfs(fd) // zero on an error: asked again next time
		pidfdFS.Store(int64(fs.Type))
	}
	if pidfdFS.Load() != pidfsMagic {
		return 0
	}
	st, _ := sys.Fstat(fd) // zero on an error: no inode
	return st.Ino
}

// Alive reports whether pid names a live process with token tok (see
// open). A zombie is not alive; a PID given to another process since is
// not; neither is one that cannot be told (see [Gone] for that).
func Alive(pid int, tok Token) bool { return look(pid, tok) == nil }

// look is open's verdict alone: nil for the live process of tok.
func look(pid int, tok Token) error {
	fd, err := open(pid, tok)
	if err == nil {
		sys.Close(fd)
	}
	return err
}

// open returns a pidfd of pid when pid names the live process of token
// tok: the pidfd is opened first, the identity compared (the pidfs inode
// where both have one, else the start), and the pidfd then checked to
// show no exit, so that the comparison was of the process the pidfd names
// — whose number cannot be handed out again while the pidfd shows it
// live. The error is errMismatch for a live process of another identity,
// and wraps sys.ErrGone when no live process has pid (none at all, or a
// zombie); any other (a pidfd_open refused for want of descriptors) is
// that it cannot be told, and wraps neither.
func open(pid int, tok Token) (int, error) {
	fd, err := sys.PidfdOpen(pid)
	if err != nil {
		return -1, err // sys.ErrGone for no process at pid
	}
	if ino := pidfsInode(fd); ino == 0 || tok.Pidfs == 0 {
		var st proc.Stat // an error: gone, or unreadable; the pidfd tells which
		if st, err = proc.ReadStat(pid); err == nil && st.StartTime != tok.Start {
			err = errMismatch
		}
	} else if ino != tok.Pidfs {
		err = errMismatch
	}
	// An exit shown is gone, whatever the comparison said. A live process
	// whose start could not be read keeps that error: nothing was compared.
	fds := []sys.PollFd{{Fd: int32(fd), Events: sys.POLLIN}}
	if n, perr := sys.Poll(fds, 0); perr != nil || n > 0 {
		err = cmp.Or(perr, sys.ErrGone)
	}
	if err != nil {
		sys.Close(fd)
		return -1, err
	}
	return fd, nil
}
