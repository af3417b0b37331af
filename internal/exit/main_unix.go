//go:build darwin || freebsd || linux

package exit

import (
	"context"
	"io"
	"os"
	"os/signal"
	"slices"
	"sync"
	"syscall"
	"time"

	"github.com/session-starter/session-starter/internal/proc"
	"github.com/session-starter/session-starter/internal/sys"
	"github.com/session-starter/session-starter/internal/wire"
	"github.com/session-starter/session-starter/starter"
)

// Main runs a session as the session-starter process does and returns
// what the process must do at the end (see [Apply]). On top of
// [starter.Run] it writes the ack line to standard output when ack is set,
// points its own standard input and output at /dev/null once the Engine
// is released (so the launcher sees end of file on the Engine's output
// exactly when the Engine's tree has closed it), and writes each failure
// report as one plain line "session-starter: …" on standard error.
//
// Standard error is kept for those reports, unless it is the same pipe or
// socket as standard output: then it goes to /dev/null at the release too,
// and later reports are lost to the launcher.
//
// Main catches the stop signals first (see [CatchStops]), unless the
// process did already, and a stop signal that came before is its first.
func Main(ctx context.Context, o starter.Options, ack bool) starter.Verdict {
	o.Stops = CatchStops()
	null, err := sys.Open("/dev/null", syscall.O_RDWR)
	if err != nil {
		return Write(starter.Verdict{Code: wire.ExitContainment, Report: err.Error()})
	}
	defer sys.Close(null)
	merged := sameStream(1, 2)
	if ack {
		o.Ack = func(pid int, mode string) error { return sys.WriteAll(1, Ack(pid, mode)) }
	}
	// The descriptors ≥ 3 the launcher passed (open and not close-on-exec),
	// less the control and status descriptors, which the session reads and
	// writes to its end. Listed before Run opens anything of its own: every
	// descriptor the Go runtime or this process opens is close-on-exec. A
	// listing that fails lists none: they then stay open until this process
	// exits, as before.
	passed := slices.DeleteFunc(proc.Inheritable(), func(fd int) bool { return fd == o.ControlFD || fd == o.StatusFD })
	o.Released = func() {
		_ = sys.Dup2(null, 0)
		_ = sys.Dup2(null, 1)
		if merged {
			_ = sys.Dup2(null, 2)
		}
		// The Engine has its copies of the launcher's descriptors and its
		// working directory since the gate's fork: this process holds
		// neither, so that the launcher reads end of file on a pipe it
		// passed once the Engine's tree has closed it, and no mount the
		// launcher wants to unmount stays busy for the session's sake
		// (the guard works in / from its start).
		for _, fd := range passed {
			_ = sys.Close(fd)
		}
		_ = os.Chdir("/")
	}
	// session-starter starts no other children: every other child it
	// has is an orphan of the Engine's tree, adopted as a subreaper (a
	// reaper on FreeBSD), where the platform has one.
	o.Subreaper = sys.CanAdoptOrphans
	o.Terminal = true
	o.Exits = true
	res, err := starter.Run(ctx, o)
	return Write(res.Verdict(err))
}

// stops is the channel of the stop signals, caught once per process.
var stops = sync.OnceValue(sys.CatchStops)

// CatchStops catches the signals that end a session ([sys.CatchStops])
// once for the whole process and returns the channel. A session starter
// calls it first thing in main, after the hidden modes: from then on a
// stop signal (SIGTERM, SIGQUIT, …) is the session's, even one that comes
// while the command line is read, and none meets the Go runtime's
// default — a traceback and exit status 2 for SIGQUIT, exit status 2 for
// any as PID 1 of a PID namespace; exit status 2 means a usage error and
// nothing else. Main calls it too. A process that then holds no session
// calls [Uncatch].
func CatchStops() chan os.Signal { return stops() }

// Uncatch gives the stop signals back to their default handling, for a
// process that caught them with [CatchStops] and then holds no session
// (help, version, a usage error, --explain, --reclaim, --end-released).
// A stop signal that came in between ends the process now, by that
// signal.
func Uncatch() {
	ch := stops()
	signal.Stop(ch)
	select {
	case sig := <-ch:
		s := sig.(syscall.Signal)
		Apply(starter.Verdict{Signal: s, Code: 128 + int(s)})
	default:
	}
}

// sameStream reports whether a and b are the same pipe or socket. Only
// those carry an end of file the launcher waits for; a terminal or a file
// shared by stdout and stderr stays open for reports.
func sameStream(a, b int) bool {
	sa, err1 := sys.Fstat(a)
	sb, err2 := sys.Fstat(b)
	if err1 != nil || err2 != nil {
		return false
	}
	kind := sa.Mode & syscall.S_IFMT
	return (kind == syscall.S_IFIFO || kind == syscall.S_IFSOCK) && sa.Dev == sb.Dev && sa.Ino == sb.Ino
}

// reportWait bounds the wait for room on standard error for a report:
// a launcher that reads its end at all makes room at once.
const reportWait = 100 * time.Millisecond

// pipeChunk is what one write may put into a pipe that poll showed
// writable without blocking: a pipe with room has a page free
// (PIPE_BUF on Linux, the least on every platform here).
const pipeChunk = 4096

// Apply ends the process as v says: death by v.Signal (with no core file
// and no Go traceback) or, where that is impossible, exit v.Code.
func Apply(v starter.Verdict) {
	// PID 1 of a PID namespace cannot die of its own signal: the kernel
	// drops it. Exit 128+S at once instead of trying.
	if v.Signal != 0 && os.Getpid() != 1 {
		sys.Die(v.Signal)
	}
	os.Exit(v.Code)
}

// Diagnostics returns the writer for the process's diagnostics on fd
// (standard error): each one is written as a report is, only while poll
// shows room, for at most a short wait, and dropped after it — so that a
// launcher that does not drain its end of the pipe never blocks the
// session, or its end, on a log line. Once one was dropped, the next ones
// wait for no room until one goes through again.
func Diagnostics(fd int) io.Writer { return &diagnostics{fd: fd} }

type diagnostics struct {
	mu      sync.Mutex
	fd      int
	dropped bool
}

// Write writes p to d.fd in chunks, each only once poll shows it
// writable, for at most reportWait in all (none after a drop); a raw
// write, so that a closed pipe gives EPIPE, not death. What is left
// unwritten by then is dropped.
func (d *diagnostics) Write(p []byte) (int, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	deadline := time.Now().Add(reportWait)
	if d.dropped {
		deadline = time.Now()
	}
	written := 0
	for written < len(p) {
		fds := []sys.PollFd{{Fd: int32(d.fd), Events: sys.POLLOUT}}
		if n, err := sys.Poll(fds, max(time.Until(deadline), 0)); err != nil || n == 0 || fds[0].Revents&sys.POLLOUT == 0 {
			break
		}
		chunk := p[written:min(len(p), written+pipeChunk)]
		if sys.WriteAll(d.fd, chunk) != nil {
			break
		}
		written += len(chunk)
	}
	d.dropped = written < len(p)
	return len(p), nil
}
