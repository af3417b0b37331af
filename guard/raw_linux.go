//go:build linux && !portable

package guard

// The raw guard: the porch, a fork of the starter that runs no Go runtime
// of its own (package rawfork holds its code), and, after it, this binary
// executed in the hidden verify mode (verifyMain) through a descriptor
// opened at arming. The porch keeps the re-executed guard's descriptors at
// the same numbers and speaks the same messages.

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"sync"
	"syscall"

	"github.com/session-starter/session-starter/internal/end"
	"github.com/session-starter/session-starter/internal/mark"
	"github.com/session-starter/session-starter/internal/proc"
	"github.com/session-starter/session-starter/internal/sys"
	"github.com/session-starter/session-starter/internal/sys/rawfork"
	"github.com/session-starter/session-starter/internal/wire"
)

// rawSupported reports whether the porch can be used: this build has the
// raw children, the kernel signals a group through a pidfd (no pin
// needed) and has close_range.
var rawSupported = sync.OnceValue(func() bool {
	return rawfork.Supported && sys.CanSignalGroup() && rawfork.CloseRangeWorks()
})

// testOnlyUnexecutableVerifier makes the porch's execution of the guard
// proper fail, as a seccomp profile or a runtime that cannot start would:
// the tests show that the porch then still ends the session by itself.
var testOnlyUnexecutableVerifier = false

// strikes is how many SIGKILL rounds the porch sends to every holder,
// once the starter is gone, before it executes the guard proper, and
// more while it finds marked processes: the first strikes must not wait
// for a Go runtime to start, which is what fails under the pressure
// (RLIMIT_NPROC, memory) that often kills the starter.
const strikes = 3

// spawnRaw starts the porch for the hand-off of spec and returns
// without waiting for it; [Guard.AwaitArmed] then reads its armed line, as
// from the re-executed guard.
func spawnRaw(spec Spec) (*Guard, error) {
	exe, err := openGuardBinary(spec.Exe)
	if err != nil {
		return nil, fmt.Errorf("guard: %w", err)
	}
	defer sys.Close(exe)
	ps := rawfork.PorchSpec{
		Comm: wire.GuardComm, PGID: spec.PGID, Budget: spec.Budget,
		Codes:    rawfork.Refusals{InGroup: refusedInGroup, GroupGone: refusedGroupGone, NoGroupSignal: refusedNoGroupSignal, Setup: refusedSetup, NoCgroup: refusedNoCgroup},
		ExitDone: exitDone, ExitRefused: exitRefused,
		FirstRound: end.FirstRound, MaxRound: end.MaxRound, FirstLook: end.FirstLook, MaxLook: end.MaxLook,
		Strikes: strikes, Release: spec.Release,
		Env: guardEnv(),
	}
	if spec.Cgroup > 2 {
		// The checks the re-executed guard makes of its descriptors, made
		// here of the same open files.
		if code := checkCgroup(spec.Cgroup, spec.CgroupParent, spec.CgroupName); code != 0 {
			return nil, fmt.Errorf("guard: %w", refusal(code))
		}
	}
	if spec.Mark != "" && spec.Cgroup <= 2 {
		// The porch sweeps the marked as the guard proper's end does:
		// only where no session cgroup holds the session (endHolders).
		if _, err := mark.Parse(spec.Mark); err != nil {
			return nil, fmt.Errorf("guard: %w", err)
		}
		ps.MarkVar, ps.MarkID, ps.Since = mark.Var, spec.Mark, spec.MarkSince
	}
	// The porch fills the number in: the budget or the deadline. It
	// follows "session-starter", verifyArg and the mode.
	ps.NumArg = 3 + numAt
	for mode, name := range []string{verifyFinish, verifyGone} {
		ps.Argv[mode] = append([]string{"session-starter", verifyArg, name}, spec.args()...)
		ps.Argv[mode][ps.NumArg] = ""
	}
	g, err := start(spec, func(from [wire.Slots]int) (int, int, error) {
		ps.From = from
		ps.From[wire.SlotExe] = exe
		if testOnlyUnexecutableVerifier {
			ps.From[wire.SlotExe] = from[0] // /dev/null: execveat answers EACCES
		}
		p, err := rawfork.StartPorch(ps)
		return p.PID, p.Pidfd, err
	})
	if err != nil {
		return nil, err
	}
	// The child leads its own group only once it has run that far; set it
	// from here too, so that the group the starter must never signal
	// exists when Spawn returns.
	if err := sys.Setpgid(g.PID, g.PID); err != nil && !errors.Is(err, syscall.ESRCH) {
		g.Abandon()
		return nil, fmt.Errorf("guard: %w", err)
	}
	return g, nil
}

// markHolders is the holder of the processes marked with id since the
// session's start, for the end once the starter is gone: never the guard
// itself, nor skip (its pin, its unreaped child), whatever they carry.
// The guard's session, E's, ties to the session a candidate that cannot
// be verified (mark.Holder.Unverified). pgid is the macOS and FreeBSD
// guard's: the mark holds here alone.
func markHolders(id mark.ID, since uint64, _ int, skip []int) []end.Holder {
	self := os.Getpid()
	// The guard never leaves the starter's session, which is E's.
	session := 0
	if st, err := proc.ReadStat(self); err == nil {
		session = st.Session
	}
	return []end.Holder{&mark.Holder{ID: id, Since: since, UID: os.Getuid(), Skip: func(pid int) bool { return pid == self || slices.Contains(skip, pid) },
		Session: session}}
}
