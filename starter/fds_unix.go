//go:build darwin || freebsd || linux

package starter

import (
	"errors"
	"fmt"
	"syscall"

	"github.com/session-starter/session-starter/internal/proc"
	"github.com/session-starter/session-starter/internal/sys"
)

// inheritedFDs lists the descriptors ≥ 3 that are open and not
// close-on-exec: those the launcher passed. Every descriptor the Go
// runtime or this process opened itself is close-on-exec, so "open" alone
// would also name the runtime's cgroup files.
func inheritedFDs() ([]int, error) {
	open, err := proc.OpenFDs()
	if err != nil {
		return nil, err
	}
	var out []int
	for _, fd := range open {
		if fd < 3 {
			continue
		}
		cloexec, err := sys.CloseOnExec(fd)
		if errors.Is(err, sys.ErrBadFD) {
			continue // closed since the listing (the listing's own descriptor)
		}
		if err != nil {
			return nil, err
		}
		if !cloexec {
			out = append(out, fd)
		}
	}
	return out, nil
}

// control is the control descriptor as the starter reads it.
type control struct {
	fd      int // descriptor polled and read
	socket  bool
	owned   bool // fd is a private reopening to close at the end
	counted bool // fd is the launcher's blocking pipe: read only what FIONREAD counts
}

// controlPipeShared reads the control pipe n through n itself and never
// changes its flags: macOS's /dev/fd/N duplicates the descriptor rather
// than reopening the pipe, so there is no private open file to make
// non-blocking. The pipe stays blocking, so ended reads only the bytes
// FIONREAD counts, and a pipe that poll showed readable with nothing in
// it is at end of input.
func controlPipeShared(n int) (*control, error) {
	return &control{fd: n, counted: true}, nil
}

// openControl validates the launcher's control descriptor n and returns
// the descriptor to watch. A pipe is reopened through /proc/self/fd/N as a
// private non-blocking, close-on-exec open file, so the shared file's
// status flags never change; a socket is read with MSG_DONTWAIT.
func openControl(n int, inherited []int) (*control, error) {
	if err := checkPassed("--control-fd", n, sys.O_WRONLY, "reading"); err != nil {
		return nil, err
	}
	st, err := sys.Fstat(n)
	if err != nil {
		return nil, fmt.Errorf("--control-fd %d: %w", n, err)
	}
	if in, err := sys.Fstat(0); err == nil && in.Dev == st.Dev && in.Ino == st.Ino {
		return nil, fmt.Errorf("--control-fd %d: the same pipe or file as standard input", n)
	}
	switch st.Mode & sys.S_IFMT {
	case sys.S_IFSOCK:
		// Only a byte stream tells end of input: a datagram socket has no
		// end (its session could never end by it), and an empty datagram
		// or SEQPACKET message reads as one while the launcher lives.
		if typ, err := sys.SocketType(n); err != nil {
			return nil, fmt.Errorf("--control-fd %d: %w", n, err)
		} else if typ != sys.SOCK_STREAM {
			return nil, fmt.Errorf("--control-fd %d: not a stream socket, so its end of input cannot be told (an empty message reads as one, or none comes): pass a pipe or a stream socket", n)
		}
		if err := checkPeerNotPassed(n, st, inherited, fmt.Sprintf("--control-fd %d", n)); err != nil {
			return nil, err
		}
		return &control{fd: n, socket: true}, nil
	case sys.S_IFIFO:
		if err := checkNoWriter(n, st, inherited, fmt.Sprintf("--control-fd %d", n)); err != nil {
			return nil, err
		}
		return controlPipe(n)
	}
	return nil, fmt.Errorf("--control-fd %d: not a pipe or socket", n)
}

// checkNoWriter refuses a control pipe or FIFO that one of the launcher's
// descriptors can write to: the control descriptor itself open read-write
// (`exec 3<>fifo`, the usual way to open a FIFO without blocking) or the
// write end passed too (Python's pass_fds=(r, w)). This process and the
// Engine would hold that writer open, so the pipe would never reach end of
// input and the session would never end by it.
func checkNoWriter(n int, st sys.Stat_t, inherited []int, what string) error {
	for _, fd := range append([]int{0, 1, 2}, inherited...) {
		other, err := sys.Fstat(fd)
		if err != nil || other.Dev != st.Dev || other.Ino != st.Ino {
			continue
		}
		mode, err := sys.AccessMode(fd)
		if err != nil || mode == sys.O_RDONLY {
			continue
		}
		if fd == n {
			return fmt.Errorf("%s: open for writing too, so the pipe could never reach end of input; open it read-only (exec %d<fifo)", what, n)
		}
		return fmt.Errorf("%s: descriptor %d writes to the same pipe, so it could never reach end of input; do not pass the write end", what, fd)
	}
	return nil
}

// checkPeerNotPassed refuses a control socket whose other end, of the same
// socket pair, was passed as well: that end would stay open in this
// process and in the Engine, and the socket would never reach end of
// input. A socket can be written through any descriptor of it, so only
// its peer is looked for. Where the kernel cannot name the peer (built
// without unix_diag, or netlink refused by a sandbox) the check is
// skipped: it catches a launcher's mistake, which is no reason to refuse
// every control socket there.
func checkPeerNotPassed(n int, st sys.Stat_t, inherited []int, what string) error {
	peer, ok, err := unixPeer(n)
	if err != nil || !ok {
		return nil
	}
	for _, fd := range append([]int{0, 1, 2}, inherited...) {
		if other, err := sys.Fstat(fd); err == nil && other.Dev == st.Dev && other.Ino == peer {
			return fmt.Errorf("%s: descriptor %d is the other end of the same socket pair, so it could never reach end of input; do not pass it", what, fd)
		}
	}
	return nil
}

// ended reads and drops what is available; it reports true at end of
// input. A descriptor that cannot be read counts as ended.
func (c *control) ended() bool {
	var buf [512]byte
	for range 64 { // bounded: a launcher streaming data cannot hold us here
		var n int
		var err error
		if c.counted {
			avail, ierr := sys.Buffered(c.fd)
			if ierr != nil || avail == 0 {
				return true
			}
			n, err = sys.Read(c.fd, buf[:min(avail, len(buf))])
		} else if c.socket {
			n, err = sys.Recv(c.fd, buf[:], sys.MSG_DONTWAIT)
		} else {
			n, err = sys.Read(c.fd, buf[:])
		}
		switch {
		case errors.Is(err, syscall.EAGAIN):
			return false
		case err != nil:
			return true
		case n == 0:
			return true
		}
	}
	return false
}

func (c *control) events() int16 {
	if c.socket {
		return sys.POLLIN | pollRDHUP
	}
	return sys.POLLIN
}

func (c *control) close() {
	if c != nil && c.owned {
		sys.Close(c.fd)
	}
}

// checkStatusFD validates the status descriptor n: not the control
// descriptor, and one the launcher passed for writing (checkPassed).
func checkStatusFD(n, controlFD int) error {
	if n == controlFD && n > 2 {
		return fmt.Errorf("--status-fd %d: the same descriptor as --control-fd", n)
	}
	return checkPassed("--status-fd", n, sys.O_RDONLY, "writing")
}

// writeStatus writes b with raw writes: a reader that is gone gives
// EPIPE, which is ignored, never death by SIGPIPE.
func writeStatus(fd int, b []byte) { _ = sys.WriteAll(fd, b) }

// checkPassed checks that the descriptor n of flag is one the launcher
// passed (> 2, open and not close-on-exec) and not open only as wrong
// (sys.O_RDONLY or sys.O_WRONLY): it is open for use.
func checkPassed(flag string, n, wrong int, use string) error {
	if n <= 2 {
		return fmt.Errorf("%s %d: must be greater than 2", flag, n)
	}
	if cloexec, err := sys.CloseOnExec(n); err != nil || cloexec {
		return fmt.Errorf("%s %d: not a descriptor the launcher passed (not open, or close-on-exec)", flag, n)
	}
	mode, err := sys.AccessMode(n)
	if err != nil {
		return fmt.Errorf("%s %d: %w", flag, n, err)
	}
	if mode == wrong {
		return fmt.Errorf("%s %d: not open for %s", flag, n, use)
	}
	return nil
}
