//go:build darwin || freebsd || linux

package gate

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/session-starter/session-starter/internal/proc"
	"github.com/session-starter/session-starter/internal/sys"
	"github.com/session-starter/session-starter/internal/wire"
)

// The gate plays one hidden mode. Only Unix starters start a gate: on
// Windows the package has no gate side, and no binary there links it.
func init() { wire.Play(gateMain, "gate") }

// arg is the first argument that selects the hidden gate mode, with the
// protocol of this version ([wire.HiddenArg]).
var arg = wire.HiddenArg("gate")

// readyTimeout bounds the wait for the gate's ready message. A gate that
// starts normally answers within milliseconds; one that has not answered in
// this time is stuck (stopped, or the machine is out of memory), and the
// session is refused rather than left hanging.
const readyTimeout = 30 * time.Second

// Gate is a started gate process waiting for its go-ahead.
type Gate struct {
	// PID is the gate's PID, which is also the number of its process
	// group and, after the go-ahead, the Engine's PID.
	PID int
	// Pidfd tells the gate's exit (a pidfd on Linux, a kqueue on macOS
	// and FreeBSD); it stays valid after the gate executes the Engine,
	// since execve keeps the process.
	Pidfd int
	path  string
	goW   int // starter → gate: the go-ahead
	repR  int // gate → starter: ready, then exec-failed or end of file
	// bornInto: made inside the session cgroup (CLONE_INTO_CGROUP), not
	// moved there.
	bornInto bool
}

// ErrKilledAtBirth is wrapped by [Gate.AwaitReady]'s error when a gate
// born in the session cgroup died of SIGKILL before it was ready. Linux
// (seen on 6.12 and 6.18) SIGKILLs a child born with CLONE_INTO_CGROUP
// when the cgroup.kill count of its cgroup differs from that of its
// parent's: a starter whose own cgroup ever saw cgroup.kill loses every
// gate born that way. Nothing was executed; a gate started again joins
// the session cgroup by writing its cgroup.procs, which the kernel
// allows, and so does every later gate of this process.
var ErrKilledAtBirth = errors.New("gate: killed at birth in the session cgroup (CLONE_INTO_CGROUP after a cgroup.kill)")

// intoCgroupKills is set once a gate born with CLONE_INTO_CGROUP was
// SIGKILLed before it was ready: from then on gates join by cgroup.procs.
var intoCgroupKills atomic.Bool

// shell runs a program that execve refuses with ENOEXEC, as execvp does.
const shell = "/bin/sh"

// noFD marks a descriptor slot that is closed in the child.
const noFD = ^uintptr(0)

// Spawn starts the gate without waiting for it; [Gate.AwaitReady] then
// waits. Between the two the starter may start other helpers, so that
// their start-up overlaps the gate's.
//
// On Linux the gate is a raw child of this process where the kernel has
// close_range (Linux 5.9) and the process's original open-files limit is
// known, unless [Spec.ReExec] asks otherwise; else, and on every other
// platform, it is [Spec.Exe] started again in the hidden gate mode. Both
// keep the same rules.
func Spawn(spec Spec) (*Gate, error) {
	// execve takes C strings: one with a NUL could only be passed on cut
	// short, so a spec with one in the Engine's path, an argument or an
	// environment entry is refused.
	for _, s := range slices.Concat([]string{spec.Path}, spec.Argv, spec.Env) {
		if strings.IndexByte(s, 0) >= 0 {
			return nil, fmt.Errorf("gate: %q: a NUL byte cannot be passed to execve", s)
		}
	}
	if !spec.ReExec && rawSupported() {
		return spawnRaw(spec)
	}
	return spawnReExec(spec)
}

// spawnReExec starts the gate as Exe in the hidden gate mode.
func spawnReExec(spec Spec) (*Gate, error) {
	// The Engine's program, argv and environment reach the gate in a
	// file of their own (writeSpec), not on its own command line: the gate's execve then takes no
	// room from the Engine's, and any Engine command line with which
	// session-starter itself could be executed fits in the Engine's
	// execve (ARG_MAX bounds argv and environment together).
	specFD, err := writeSpec(spec)
	if err != nil {
		return nil, fmt.Errorf("gate: %w", err)
	}
	defer sys.Close(specFD)
	goR, goW, repR, repW, err := sys.Pipes()
	if err != nil {
		return nil, fmt.Errorf("gate: %w", err)
	}
	// The identity map: the launcher's descriptors at their own numbers,
	// holes closed, then after the highest (top) the gate's own, in the
	// order parseArgs reads them. Every slot below len(files) is set
	// explicitly, so Go's fork cannot park its internal pipe on a number
	// the Engine should inherit.
	top := 2
	if len(spec.Files) > 0 {
		top = max(top, slices.Max(spec.Files))
	}
	files := slices.Repeat([]uintptr{noFD}, top+1)
	for _, fd := range spec.Files {
		files[fd] = uintptr(fd)
	}
	files = append(files, uintptr(goR), uintptr(repW), uintptr(specFD))
	cgArg := "-"
	if spec.CgroupProcs > 2 {
		cgArg = cgroupArg
		files = append(files, uintptr(spec.CgroupProcs))
	}
	argv := []string{"session-starter", arg, strconv.Itoa(top), cgArg}
	pid, pidfd, err := sys.SpawnGroup(spec.Exe, argv, []string{}, "", files, 0)
	sys.Close(goR)
	sys.Close(repW)
	if err != nil {
		sys.Close(goW)
		sys.Close(repR)
		return nil, fmt.Errorf("gate: start %s: %w", spec.Exe, err)
	}
	return &Gate{PID: pid, Pidfd: pidfd, path: spec.Path, goW: goW, repR: repR}, nil
}

// AwaitReady waits until the gate shows that it leads its own process
// group. On an error the gate has been killed and reaped, and nothing was
// executed.
func (g *Gate) AwaitReady() error {
	err := g.awaitReady()
	if err != nil {
		if g.killedAtBirth() {
			intoCgroupKills.Store(true)
			err = fmt.Errorf("%w: %v", ErrKilledAtBirth, err)
		}
		g.kill()
	}
	return err
}

// killedAtBirth reports whether a gate born in the session cgroup, which
// has not said ready, was SIGKILLed by the kernel at its birth
// (ErrKilledAtBirth): it died of SIGKILL without having run its first
// instruction, which names it "session-gate" — its zombie still bears the name it
// was forked with. A gate that someone else SIGKILLed later (it had its
// name, which is how they would find it) is not, and no gate is started
// again for it. It waits at most reapWait for the gate's exit, which
// comes at once after such a kill, and reaps nothing.
func (g *Gate) killedAtBirth() bool {
	if !g.bornInto {
		return false
	}
	fds := []sys.PollFd{{Fd: int32(g.Pidfd), Events: sys.POLLIN}}
	if n, err := sys.Poll(fds, reapWait); err != nil || n == 0 {
		return false
	}
	ws, exited, err := sys.PeekChild(g.PID, g.Pidfd)
	if err != nil || !exited || ws.Exited || ws.Signal != syscall.SIGKILL {
		return false
	}
	// Our unreaped child: its PID names it alone.
	st, err := proc.ReadStat(g.PID)
	return err == nil && st.Comm != wire.GateComm
}

func (g *Gate) awaitReady() error {
	fds := []sys.PollFd{{Fd: int32(g.repR), Events: sys.POLLIN}}
	n, err := sys.Poll(fds, readyTimeout)
	if err != nil {
		return fmt.Errorf("gate: %w", err)
	}
	if n == 0 {
		return fmt.Errorf("gate: no ready message from pid %d within %v", g.PID, readyTimeout)
	}
	line, err := wire.ReadLine(sys.FD(g.repR))
	if err != nil {
		return fmt.Errorf("gate: pid %d ended before it was ready: %w", g.PID, err)
	}
	if err := wire.Expect(line, wire.Ready, g.PID); err != nil {
		return fmt.Errorf("gate: %w", err)
	}
	// The gate said it leads its group; check it from outside too. The
	// gate is our unreaped child, so its PID cannot name anyone else.
	pgid, err := sys.Getpgid(g.PID)
	if err != nil {
		return fmt.Errorf("gate: %w", err)
	}
	if pgid != g.PID {
		return fmt.Errorf("gate: pid %d is in process group %d, not its own", g.PID, pgid)
	}
	return nil
}

// kill ends a gate that never got its go-ahead, through its pidfd, and
// reaps it. It has executed nothing and is alone in its group.
func (g *Gate) kill() {
	g.Abort()
	_ = sys.SignalChild(g.PID, g.Pidfd, syscall.SIGKILL)
	_, _ = sys.ReapChildWithin(g.PID, g.Pidfd, reapWait)
	g.Close()
}

// reapWait bounds the wait for a SIGKILLed gate to be reapable: it runs
// nothing but our own code, and exits at once unless it is frozen; then
// it is left unreaped.
const reapWait = time.Second

// Release sends the go-ahead: the gate executes the Engine's program.
// Whether that worked is read with [Gate.ExecResult].
func (g *Gate) Release() error {
	err := sys.WriteAll(g.goW, wire.Encode(wire.Go, g.PID))
	g.Abort()
	if err != nil {
		return fmt.Errorf("gate: go-ahead: %w", err)
	}
	return nil
}

// Abort closes the go-ahead pipe without a go-ahead: the gate exits
// without executing anything.
func (g *Gate) Abort() { sys.CloseFDs(&g.goW) }

// ReportFD is the descriptor on which the exec result arrives; it becomes
// readable (data or end of file) when the gate has executed the Engine or
// failed to.
func (g *Gate) ReportFD() int { return g.repR }

// ExecResult reads the outcome of the go-ahead: nil when the Engine's
// program was executed (the report pipe, close-on-exec in the gate, ended
// without a message), an *os.PathError "execute PATH" of execve's errno
// when it failed.
// Call it only once ReportFD is readable or the gate has exited, else it
// blocks.
func (g *Gate) ExecResult() error {
	line, err := wire.ReadLine(sys.FD(g.repR))
	if errors.Is(err, io.EOF) {
		// The gate's end of the pipe closed: at its execve, or at its
		// exit.
		return nil
	}
	if err != nil {
		return fmt.Errorf("gate: exec report: %w", err)
	}
	nums, err := wire.Decode(line, wire.ExecFailed, 1)
	if err != nil {
		return fmt.Errorf("gate: exec report: %w", err)
	}
	return &os.PathError{Op: "execute", Path: g.path, Err: syscall.Errno(nums[0])}
}

// Close releases the starter's descriptors of the gate, the pidfd
// included. It does not reap the gate.
func (g *Gate) Close() {
	sys.CloseFDs(&g.goW, &g.repR, &g.Pidfd)
}

// gateMain is the gate side. It never returns: it executes the Engine's
// program, or exits without executing anything when the starter is gone
// before the go-ahead, or reports an execve failure and exits 126 or 127.
func gateMain(args []string) {
	if err := wire.CheckProtocol(args); err != nil {
		// Of another version than the starter: nothing it hands over can
		// be trusted to mean what this gate would read.
		complainAndExit(wire.ExitProtocol, "%v", err)
	}
	// The command name below (PR_SET_NAME names the calling thread, and
	// /proc/PID/comm shows the main one) belongs to this, the main, thread.
	runtime.LockOSThread()
	goFD, repFD, cgFD, specFD, err := parseArgs(args)
	if err != nil {
		complainAndExit(wire.ExitNotReleased, "%v", err)
	}
	path, argv, env, err := readSpec(specFD)
	if err != nil {
		complainAndExit(wire.ExitNotReleased, "%v", err)
	}
	_ = sys.SetName(wire.GateComm)
	pid := os.Getpid()
	if pgid, err := sys.Getpgid(0); err != nil || pgid != pid {
		os.Exit(wire.ExitNotReleased)
	}
	if cgFD > 0 {
		// Join the session cgroup before saying ready: from here on every
		// process of the Engine's tree is born in it. Writing our own PID
		// moves every thread of this process; a failure means no ready.
		err := sys.WriteAll(cgFD, []byte(strconv.Itoa(pid)))
		sys.Close(cgFD)
		if err != nil {
			complainAndExit(wire.ExitNotReleased, "join the session cgroup: %v", err)
		}
	}
	if sys.WriteAll(repFD, wire.Encode(wire.Ready, pid)) != nil {
		os.Exit(wire.ExitNotReleased)
	}
	line, err := wire.ReadLine(sys.FD(goFD))
	if err != nil || wire.Expect(line, wire.Go, pid) != nil {
		os.Exit(wire.ExitNotReleased)
	}
	sys.Close(goFD)
	err = syscall.Exec(path, argv, env)
	if errors.Is(err, syscall.ENOEXEC) {
		// A file the kernel does not know how to run (a script without
		// "#!") is a shell script to POSIX execvp, as to timeout, env and
		// every shell: run it with /bin/sh as glibc does.
		err = syscall.Exec(shell, append([]string{shell, path}, argv[1:]...), env)
	}
	var errno syscall.Errno
	if !errors.As(err, &errno) {
		errno = syscall.EINVAL
	}
	_ = sys.WriteAll(repFD, wire.Encode(wire.ExecFailed, int(errno)))
	os.Exit(wire.ExitStatusFor(errno))
}

// complainAndExit writes one report line on stderr with a plain write,
// and exits with code: a stderr pipe nobody reads gives EPIPE, not death
// by SIGPIPE as through os.Stderr, so the gate still exits with its own
// status.
func complainAndExit(code int, format string, args ...any) {
	_ = sys.WriteAll(2, []byte("session-starter: gate: "+fmt.Sprintf(format, args...)+"\n"))
	os.Exit(code)
}

// cgroupArg is the last argument of a gate that joins the session cgroup
// ("-" for none).
const cgroupArg = "cgroup"

// parseArgs reads the gate's command line: arg, the highest of the
// Engine's descriptors (top), and cgroupArg or "-". The gate's own
// descriptors follow top: the go-ahead, the report, the spec, then
// the cgroup.procs descriptor where cgroupArg names it; cgFD is 0 when
// there is none. Each arrived without close-on-exec (dup2 into its slot
// clears it) and is made close-on-exec at once: the Engine must never
// inherit one, even on a path that exits early.
func parseArgs(args []string) (goFD, repFD, cgFD, specFD int, err error) {
	if len(args) != 4 || args[1] != arg || (args[3] != "-" && args[3] != cgroupArg) {
		return 0, 0, 0, 0, errors.New("malformed gate command line")
	}
	top, err := strconv.Atoi(args[2])
	if err != nil || top < 2 {
		return 0, 0, 0, 0, fmt.Errorf("malformed gate descriptor %q", args[2])
	}
	goFD, repFD, specFD = top+1, top+2, top+3
	if args[3] == cgroupArg {
		cgFD = top + 4
	}
	for _, fd := range []int{goFD, repFD, cgFD, specFD} {
		if fd != 0 && sys.SetCloseOnExec(fd) != nil {
			return 0, 0, 0, 0, errors.New("gate descriptor not open")
		}
	}
	return goFD, repFD, cgFD, specFD, nil
}

// readSpec reads what writeSpec wrote, from offset 0 (the starter's
// writes moved the shared offset to the end), and closes fd.
func readSpec(fd int) (path string, argv, env []string, err error) {
	f := os.NewFile(uintptr(fd), "the Engine's command line")
	defer f.Close()
	b, err := io.ReadAll(io.NewSectionReader(f, 0, math.MaxInt64))
	if err != nil {
		return "", nil, nil, fmt.Errorf("read the Engine's command line: %w", err)
	}
	return parseSpec(b)
}

// writeSpec returns a close-on-exec descriptor of a file (specFile)
// holding the Engine's program, argv and environment as the gate reads
// them: the counts of argv and environment, then the program's path and
// every string, each ended by a NUL byte, which none of them can hold.
func writeSpec(spec Spec) (int, error) {
	head := []string{strconv.Itoa(len(spec.Argv)), strconv.Itoa(len(spec.Env)), spec.Path}
	b := []byte(strings.Join(slices.Concat(head, spec.Argv, spec.Env), "\x00") + "\x00")
	fd, err := specFile()
	if err != nil {
		return -1, err
	}
	if err := sys.WriteAll(fd, b); err != nil {
		sys.Close(fd)
		return -1, err
	}
	return fd, nil
}

// parseSpec splits a spec into the Engine's path, argv and environment.
func parseSpec(b []byte) (path string, argv, env []string, err error) {
	malformed := errors.New("malformed Engine command line")
	if len(b) == 0 || b[len(b)-1] != 0 {
		return "", nil, nil, malformed
	}
	fields := strings.Split(string(b[:len(b)-1]), "\x00")
	if len(fields) < 3 {
		return "", nil, nil, malformed
	}
	argc, err1 := strconv.Atoi(fields[0])
	envc, err2 := strconv.Atoi(fields[1])
	if err1 != nil || err2 != nil || argc < 1 || envc < 0 || argc+envc != len(fields)-3 {
		return "", nil, nil, malformed
	}
	return fields[2], fields[3 : 3+argc], fields[3+argc:], nil
}
