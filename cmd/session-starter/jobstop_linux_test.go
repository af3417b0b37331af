package main

import (
	"bytes"
	"os"
	"strconv"
	"syscall"
	"testing"

	"github.com/session-starter/session-starter/internal/testproc"
)

// state is the state letter of /proc/PID/stat, or 0 if it cannot be read.
func state(pid int) byte {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	i := bytes.LastIndexByte(b, ')')
	if err != nil || i < 0 || len(b) < i+3 {
		return 0
	}
	return b[i+2]
}

// TestAJobStopOfTheStarterStopsTheEnginesGroupAndContinuesIt: SIGTSTP,
// SIGTTIN or SIGTTOU sent to the starter stops the Engine too, then the
// starter; SIGCONT to the starter continues both, and the session still
// ends on a stop signal.
func TestAJobStopOfTheStarterStopsTheEnginesGroupAndContinuesIt(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGTSTP, syscall.SIGTTIN, syscall.SIGTTOU} {
		t.Run(sig.String(), func(t *testing.T) {
			mark := newMark(t)
			s := start(t, mark, []string{"--ack", "--", "sleep", "600"})
			engine, starter := s.ack(), s.cmd.Process.Pid
			s.signal(sig)
			testproc.Eventually(t, "the Engine and the starter must be stopped", func() bool {
				return state(engine) == 'T' && state(starter) == 'T'
			})
			s.signal(syscall.SIGCONT)
			testproc.Eventually(t, "the Engine and the starter must run again", func() bool {
				e, st := state(engine), state(starter)
				return e != 'T' && e != 0 && st != 'T' && st != 0
			})
			s.signal(syscall.SIGTERM)
			wantSignal(t, s.wait(), syscall.SIGKILL, s.stderr)
			noSurvivors(t, mark)
		})
	}
}
