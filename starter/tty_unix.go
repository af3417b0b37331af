//go:build darwin || freebsd || linux

package starter

import "github.com/session-starter/session-starter/internal/sys"

// terminal is the controlling terminal, when one of stdin, stdout and
// stderr is it. The starter hands it to the Engine's group at the start
// when that is what a direct launch would give the Engine: stdin is the
// terminal, the starter's group is its foreground group (not a job started
// with &), and stdout is not a pipe or socket (not the first command of
// `session-starter -- git log | less`, whose last command reads the
// terminal too). Stdout may be the terminal, a file or any other device:
// `session-starter -- cmd > out` typed at a shell gives cmd the terminal,
// as it would without session-starter.
//
// Otherwise the Engine's group is in the background; a stop of the Engine
// by SIGTTIN or SIGTTOU (it read the terminal, or changed its settings) is
// followed as Ctrl-Z is: the starter stops too, so the shell shows the job
// stopped, and when continued in the foreground (fg) the starter gives the
// terminal to the Engine's group.
type terminal struct {
	fd       int  // close-on-exec copy of the terminal's descriptor, for tcsetpgrp
	own      int  // the starter's process group
	handOver bool // give the terminal to the Engine's group at the start
	given    int  // the group the terminal was last given to, other than own
	released bool // the session's release handed the terminal over, as handOver says
}

// openTerminal returns the controlling terminal, or nil.
func openTerminal() *terminal {
	for fd := range 3 {
		// TIOCGPGRP fails with ENOTTY unless fd is our controlling
		// terminal.
		fg, err := sys.Tcgetpgrp(fd)
		if err != nil {
			continue
		}
		dup, err := sys.DupCloseOnExec(fd, 3)
		if err != nil {
			return nil
		}
		own := sys.Getpgrp()
		return &terminal{fd: dup, own: own, handOver: fd == 0 && fg == own && !streamOut()}
	}
	return nil
}

// streamOut reports whether stdout is a pipe or socket, whose reader may
// be another command of the same job.
func streamOut() bool {
	st, err := sys.Fstat(1)
	if err != nil {
		return false
	}
	kind := st.Mode & sys.S_IFMT
	return kind == sys.S_IFIFO || kind == sys.S_IFSOCK
}

// handOverTo gives the terminal to the Engine's group pgid if a direct
// launch would have given it to the Engine (see terminal).
func (t *terminal) handOverTo(pgid int) error {
	if !t.handOver {
		return nil
	}
	return t.give(pgid)
}

// give makes pgid the terminal's foreground group. It runs with SIGTTOU
// blocked on its thread, so that the starter, in the background once the
// Engine has the terminal, is never stopped by it (a process that blocks
// SIGTTOU may set the foreground group from the background).
func (t *terminal) give(pgid int) error {
	var err error
	withTTOUBlocked(func() { err = sys.Tcsetpgrp(t.fd, pgid) })
	if err != nil {
		return err
	}
	if pgid != t.own {
		t.given = pgid
	}
	return nil
}

// foreground reports whether the starter's group has the terminal.
func (t *terminal) foreground() bool {
	fg, err := sys.Tcgetpgrp(t.fd)
	return err == nil && fg == t.own
}

// takeBack gives the terminal back to the starter's group if the group it
// was given to still has it. Never else: a starter in the background would
// take the terminal from the shell (a process that blocks SIGTTOU may set
// the foreground group from the background).
func (t *terminal) takeBack() error {
	if fg, err := sys.Tcgetpgrp(t.fd); err != nil || t.given == 0 || fg != t.given {
		return nil
	}
	return t.give(t.own)
}

func (t *terminal) close() { sys.Close(t.fd) }
