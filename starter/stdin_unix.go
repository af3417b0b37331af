//go:build darwin || freebsd || linux

package starter

import (
	"errors"
	"fmt"

	"github.com/session-starter/session-starter/internal/sys"
)

// stdinWatch is the launcher's own end of the Engine's standard input,
// watched for its hang-up: a duplicate of descriptor 0 (the same open
// file: a reopening would miss a hang-up that came before it), never read
// and its flags never changed; polled for POLLHUP (a pipe, which poll
// reports whatever the events asked: events 0) or POLLRDHUP (a stream
// socket), never POLLIN, so that data the Engine has not read yet wakes
// nothing.
type stdinWatch struct {
	fd     int
	events int16
}

// errNeverHangsUp is wrapped by openStdinWatch's error when standard
// input is of a kind that can never tell the launcher's end.
var errNeverHangsUp = errors.New("never hangs up")

// openStdinWatch checks that standard input can tell the launcher's end
// — a pipe or FIFO no passed descriptor writes to, or a connected stream
// socket whose other end was not passed — and duplicates it. Anything
// else is a usage error: a terminal, /dev/null or another character
// device, a regular file, a directory, a listening or datagram socket can
// never hang up (errNeverHangsUp).
func openStdinWatch(inherited []int) (*stdinWatch, error) {
	st, err := sys.Fstat(0)
	if err != nil {
		return nil, fmt.Errorf("--watch-stdin: standard input: %w", err)
	}
	var events int16
	switch st.Mode & sys.S_IFMT {
	case sys.S_IFIFO:
		if err := checkNoWriter(0, st, inherited, "--watch-stdin: standard input"); err != nil {
			return nil, err
		}
	case sys.S_IFSOCK:
		if !sys.SocketHangups {
			return nil, fmt.Errorf("--watch-stdin: standard input is a socket, whose hang-up this platform does not tell (%w); give the Engine a pipe", errNeverHangsUp)
		}
		if typ, err := sys.SocketType(0); err != nil || typ != sys.SOCK_STREAM {
			return nil, fmt.Errorf("--watch-stdin: standard input is a socket that is not a stream, whose end cannot be told: it %w", errNeverHangsUp)
		}
		if listening, err := sys.Listening(0); err != nil || listening {
			return nil, fmt.Errorf("--watch-stdin: standard input is a listening socket, which %w", errNeverHangsUp)
		}
		if err := checkPeerNotPassed(0, st, inherited, "--watch-stdin: standard input"); err != nil {
			return nil, err
		}
		events = sys.POLLRDHUP
	case sys.S_IFCHR:
		what := "a character device (/dev/null, say)"
		if sys.IsTerminal(0) {
			what = "a terminal"
		}
		return nil, fmt.Errorf("--watch-stdin: standard input is %s, which %w", what, errNeverHangsUp)
	default:
		return nil, fmt.Errorf("--watch-stdin: standard input is a file or directory, which %w; it must be a pipe or a stream socket", errNeverHangsUp)
	}
	fd, err := sys.DupCloseOnExec(0, 3)
	if err != nil {
		return nil, fmt.Errorf("--watch-stdin: %w", err)
	}
	return &stdinWatch{fd: fd, events: events}, nil
}

// close closes the duplicate: the launcher's writes then fail with EPIPE
// once the Engine's tree has closed its end too.
func (w *stdinWatch) close() {
	if w != nil {
		sys.CloseFDs(&w.fd)
	}
}
