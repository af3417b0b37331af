package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/session-starter/session-starter/internal/testproc"
)

// tmuxShell is an interactive bash in a real pseudo-terminal, driven with
// tmux send-keys and read with capture-pane.
type tmuxShell struct {
	t      *testing.T
	socket string
	env    []string
}

func newTmuxShell(t *testing.T, mark string) *tmuxShell {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("tmux is needed for the terminal tests (.ci/run installs it)")
		}
		t.Skip("tmux not installed")
	}
	sh := &tmuxShell{t: t, socket: fmt.Sprintf("session-starter-test-%d-%s", os.Getpid(), strings.ReplaceAll(t.Name(), "/", "_")),
		// Only the sessions carry the mark, not tmux and bash: $S is
		// unquoted in the command lines, so it splits into env, the mark
		// and the binary.
		env: append(os.Environ(), "S=env "+markVar+"="+mark+" "+binary, "PS1=$ ")}
	sh.tmux("new-session", "-d", "-x", "150", "-y", "40", "bash --norc --noprofile")
	t.Cleanup(func() { _ = exec.Command("tmux", "-L", sh.socket, "kill-server").Run() })
	sh.run("PS1='$ '")
	return sh
}

func (sh *tmuxShell) tmux(args ...string) string {
	sh.t.Helper()
	cmd := exec.Command("tmux", append([]string{"-L", sh.socket}, args...)...)
	cmd.Env = sh.env
	out, err := cmd.CombinedOutput()
	if err != nil {
		sh.t.Fatalf("tmux %v: %v: %s", args, err, out)
	}
	return string(out)
}

// run types a line and Enter.
func (sh *tmuxShell) run(line string) { sh.tmux("send-keys", "-t", "0", "-l", line); sh.key("Enter") }

// key sends a key such as C-c or Enter.
func (sh *tmuxShell) key(k string) { sh.tmux("send-keys", "-t", "0", k) }

// await waits until the screen shows want.
func (sh *tmuxShell) await(want string) {
	sh.t.Helper()
	var screen string
	defer func() {
		if sh.t.Failed() {
			sh.t.Logf("screen:\n%s", screen)
		}
	}()
	testproc.Eventually(sh.t, "the terminal must show "+want, func() bool {
		screen = sh.tmux("capture-pane", "-p", "-t", "0")
		return strings.Contains(screen, want)
	})
}

// engineTerminal reads, from /proc/PID/stat of the Engine (the process of
// the session, carrying mark, that runs comm and leads its own group),
// its process group and the foreground group of its terminal (tpgid).
func engineTerminal(mark, comm string) (pgrp, tpgid int, ok bool) {
	for _, pid := range marked(mark) {
		b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil {
			continue
		}
		// comm may hold spaces and ')': it ends at the last ')'.
		open, end := bytes.IndexByte(b, '('), bytes.LastIndexByte(b, ')')
		if open < 0 || end < open || string(b[open+1:end]) != comm {
			continue
		}
		// After comm: state, ppid, pgrp, session, tty_nr, tpgid.
		f := strings.Fields(string(b[end+1:]))
		if len(f) < 6 {
			continue
		}
		pgrp, err1 := strconv.Atoi(f[2])
		tpgid, err2 := strconv.Atoi(f[5])
		if err1 == nil && err2 == nil && pgrp == pid {
			return pgrp, tpgid, true
		}
	}
	return 0, 0, false
}

// awaitEngineForeground waits until the group of the Engine, a process
// running comm, is the terminal's foreground group. Only then may a test
// type what the Engine is to read: while bash still reads its command
// line, readline takes all typeahead into its own buffer, so a line typed
// right behind "fg" would become bash's next command, not the Engine's
// input.
func (sh *tmuxShell) awaitEngineForeground(mark, comm string) {
	sh.t.Helper()
	var pgrp, tpgid int
	var found bool
	defer func() {
		if sh.t.Failed() {
			sh.t.Logf("engine %s found %v, its group %d, the terminal's foreground group %d; screen:\n%s",
				comm, found, pgrp, tpgid, sh.tmux("capture-pane", "-p", "-t", "0"))
		}
	}()
	testproc.Eventually(sh.t, "the Engine's group must become the terminal's foreground group", func() bool {
		pgrp, tpgid, found = engineTerminal(mark, comm)
		return found && tpgid == pgrp
	})
}

func TestAtATerminalTheEngineReadsItAndCtrlCReachesIt(t *testing.T) {
	mark := newMark(t)
	sh := newTmuxShell(t, mark)
	sh.run(`$S -- sh -c 'read l; echo "engine got: $l"'; echo "EXIT=$?"`)
	sh.awaitEngineForeground(mark, "sh")
	sh.run("hello")
	sh.await("engine got: hello")
	sh.await("EXIT=0")

	// The Engine prints "started"; the command line shows st""arted, so
	// the echo of the typed line cannot be mistaken for it.
	sh.run(`$S -- sh -c 'echo st""arted; exec sleep 600'`)
	sh.await("started")
	sh.key("C-c")
	sh.run(`echo "AFTER=$?"`)
	sh.await("AFTER=130")
	noSurvivors(t, mark)
}

func TestAtATerminalCtrlZStopsTheJobAndFgResumesIt(t *testing.T) {
	mark := newMark(t)
	sh := newTmuxShell(t, mark)
	sh.run(`$S -- sh -c 'echo st""arted; read l; echo "resumed: $l"; exit 4'`)
	sh.await("started")
	sh.key("C-z")
	sh.await("Stopped")
	// The starter took the terminal back before it stopped, so the
	// wait below is for fg's hand-over, not a state left from before.
	if pgrp, tpgid, ok := engineTerminal(mark, "sh"); !ok || tpgid == pgrp {
		t.Fatalf("stopped: Engine found %v, its group %d, the terminal's foreground group %d; want an Engine without the terminal", ok, pgrp, tpgid)
	}
	sh.run("fg")
	sh.awaitEngineForeground(mark, "sh")
	sh.run("more")
	sh.await("resumed: more")
	sh.run(`echo "FG=$?"`)
	sh.await("FG=4")
	noSurvivors(t, mark)
}

// TestInAPipelineTheTerminalIsNotHandedOver: stdout is a pipe, so the
// Engine's group does not take the terminal (it would stop less).
func TestInAPipelineTheTerminalIsNotHandedOver(t *testing.T) {
	mark := newMark(t)
	sh := newTmuxShell(t, mark)
	sh.run(`$S -- sh -c 'echo through the pipe' | cat; echo "PIPE=$?"`)
	sh.await("through the pipe")
	sh.await("PIPE=0")
	noSurvivors(t, mark)
}

// TestAtATerminalWithStdoutRedirectedTheEngineStillReadsIt: `… > out`
// typed at a shell; stdout is a file, not a pipe another command of the
// job reads, so the Engine's group gets the terminal as a direct launch
// would, and Ctrl-C reaches it.
func TestAtATerminalWithStdoutRedirectedTheEngineStillReadsIt(t *testing.T) {
	mark := newMark(t)
	sh := newTmuxShell(t, mark)
	dir := t.TempDir()
	sh.run("cd " + dir)
	sh.run(`$S -- sh -c 'read l; echo "engine got: $l"' > out; echo "EXIT=$?"; cat out`)
	sh.awaitEngineForeground(mark, "sh")
	sh.run("hello")
	sh.await("engine got: hello")
	sh.await("EXIT=0")

	sh.run(`$S -- sh -c 'echo st""arted; exec sleep 600' > out2`)
	testproc.Eventually(t, "the Engine must start", func() bool {
		b, _ := os.ReadFile(filepath.Join(dir, "out2"))
		return strings.Contains(string(b), "started")
	})
	sh.key("C-c")
	sh.run(`echo "AFTER=$?"`)
	sh.await("AFTER=130")
	noSurvivors(t, mark)
}

// TestAJobInTheBackgroundThatReadsTheTerminalStopsAndFgResumesIt: started
// with &, the Engine is stopped by SIGTTIN when it reads the terminal;
// session-starter stops too, so the shell shows the job stopped, as it
// would without session-starter, and fg gives the Engine the terminal.
func TestAJobInTheBackgroundThatReadsTheTerminalStopsAndFgResumesIt(t *testing.T) {
	mark := newMark(t)
	sh := newTmuxShell(t, mark)
	sh.run("set -b") // report the job's stop at once
	sh.run(`$S -- sh -c 'read l; echo "resumed: $l"; exit 4' &`)
	sh.await("Stopped")
	sh.run("fg")
	sh.awaitEngineForeground(mark, "sh")
	sh.run("more")
	sh.await("resumed: more")
	sh.run(`echo "FG=$?"`)
	sh.await("FG=4")
	noSurvivors(t, mark)
}
