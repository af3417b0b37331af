//go:build darwin || freebsd || linux

package starter

import (
	"context"
	"fmt"
	"os"

	"golang.org/x/sys/unix"

	"github.com/session-starter/session-starter/internal/sys"
)

// Main runs a session as the session-starter process does and returns
// what the process must do at the end (see [Verdict.Apply]). On top of
// [Run] it writes the ack line to standard output when ack is set,
// points its own standard input and output at /dev/null once the Engine
// is released (so the launcher sees end of file on the Engine's output
// exactly when the Engine's tree has closed it), and writes each failure
// report as one plain line "session-starter: …" on standard error.
//
// Standard error is kept for those reports, unless it is the same pipe or
// socket as standard output: then it goes to /dev/null at the release too,
// and later reports are lost to the launcher.
func Main(ctx context.Context, o Options, ack bool) Verdict {
	null, err := unix.Open("/dev/null", unix.O_RDWR|unix.O_CLOEXEC, 0)
	if err != nil {
		return report(Verdict{Code: ExitContainment, Report: fmt.Sprintf("open /dev/null: %v", err)})
	}
	defer sys.Close(null)
	merged := sameStream(1, 2)
	if ack {
		o.Ack = func(pid int, mode string) error { return sys.WriteAll(1, Ack(pid, mode)) }
	}
	o.Released = func() {
		_ = sys.Dup2(null, 0)
		_ = sys.Dup2(null, 1)
		if merged {
			_ = sys.Dup2(null, 2)
		}
	}
	// session-starter starts no other children: every other child it
	// has is an orphan of the Engine's tree, adopted as a subreaper (a
	// reaper on FreeBSD), where the platform has one.
	o.Subreaper = adoptsOrphans
	o.Terminal = true
	o.Exits = true
	res, err := Run(ctx, o)
	if err != nil {
		return report(Verdict{Code: ExitCode(err), Report: err.Error()})
	}
	return report(res.Verdict())
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
	kind := sa.Mode & unix.S_IFMT
	return (kind == unix.S_IFIFO || kind == unix.S_IFSOCK) && sa.Dev == sb.Dev && sa.Ino == sb.Ino
}

func report(v Verdict) Verdict {
	if v.Report != "" {
		// A raw write: a closed stderr pipe gives EPIPE, not death.
		_ = sys.WriteAll(2, []byte("session-starter: "+v.Report+"\n"))
	}
	return v
}

// Apply ends the process as v says: death by v.Signal (with no core file
// and no Go traceback) or, where that is impossible, exit v.Code.
func (v Verdict) Apply() {
	// PID 1 of a PID namespace cannot die of its own signal: the kernel
	// drops it. Exit 128+S at once instead of trying.
	if v.Signal != 0 && os.Getpid() != 1 {
		sys.Die(v.Signal)
	}
	os.Exit(v.Code)
}
