// Package contain is for Go Engines. It has two parts.
//
// # The requested form
//
// [IfRequested], called first thing in main, makes the program its own
// session starter when a launcher asks for it (the requested form), and
// returns at once otherwise.
//
// When asked, the process behaves as "session-starter --ack
// --watch-parent -- <its own command line>": it writes the ack line, runs
// the same binary with the same arguments as the Engine behind the gate
// and the guard, and exits with the Engine's status once every process of
// the session has ended. A launcher reads the ack line exactly as from
// session-starter (package starter/launch, [launch.ParseAck]).
//
// Failure rule: if containment cannot be established, the process exits
// 125 with one report line on stderr, and the Engine never runs; a helper
// binary of another protocol refuses, and the session fails the same way.
//
// # Contained calls
//
// [Command] and [Wrap] are os/exec for the commands an Engine runs per
// call — a Bash tool's shell, a test runner, "npm run dev &" — with the
// call's whole tree as the unit: a [Cmd] embeds *[exec.Cmd] and shadows
// Start, Wait, Run, Output and CombinedOutput.
//
// Each call is a tree of its own:
//
//   - its own process group (Unix) — the leader is started with Setpgid;
//     on Windows its own kill-on-close job, nested in the session's;
//   - in a session in cgroup mode (this process is an Engine whose
//     cgroup is its session's), its own cgroup below the session cgroup,
//     born there (CLONE_INTO_CGROUP): no instruction of the call runs
//     outside it, and the session's cgroup.kill reaches it;
//   - under a session (the session mark, SESSION_STARTER_SESSION, is in
//     the environment) the call carries the mark, even with an Env of its
//     own that left it out.
//
// Kill before reap, always: the leader's exit is observed without
// reaping it (its pidfd, from the fork, turns readable; waitid WNOWAIT
// reads how it ended), the tree is ended or released while the leader's
// unreaped exit still holds its number — so the group's number cannot
// have been handed to another process — and only then does Wait reap the
// leader. The group is signalled through the leader's pidfd where the
// kernel can (Linux 6.9), else by number, safe for that reason. The end
// is the session's own end routine: the stop signal to the whole tree at
// once, a grace, SIGKILL rounds until it is empty, one deadline.
//
// # The ends
//
// A started call ends in one of two ways, named in [Result.Ending]:
//
//   - Killed: a cancelled context, [Cmd.Kill], or the leader's own exit
//     with [Cmd.EndOnExit] — every process of the tree is ended
//     ([Cmd.StopSignal], [Cmd.Grace], then SIGKILL within
//     [Cmd.KillBudget]); [ErrSurvivors] names what did not end.
//   - Released: the leader exited on its own — what it left running (a
//     dev server it started in the background) stays, and is listed in
//     [Result.Left]. It is still inside the session.
//
// And what neither reached ends with the session: when the Engine exits
// or dies, or the session is stopped, every call's tree ends with it —
// in cgroup mode as part of the session cgroup, in group mode as the
// session's adopted escapees (session-starter is a subreaper) and, after
// a SIGKILL of the starter itself, by the guard through the session mark.
// A process that outlives the session is not offered.
//
// # Output
//
// A Stdin, Stdout or Stderr that is not an *os.File goes through a pipe
// of this package's (exec starts no copying of its own). After the
// leader's exit (and the end or release), output is read for at most
// [Cmd.Drain] ([DefaultDrain]); a pipe still held open then — by a
// released process, or an escapee — is closed, and Wait's error wraps
// [exec.ErrWaitDelay] naming the holders ([Result.PipeHolders]). Wait
// never hangs on a grandchild.
//
// # Retries
//
// [Result.Outcome] says whether the program ran: [NotStarted] (Start
// failed before the program was executed: a refused Cmd, a program not
// found, a failed fork), [Started], or [Unclear]. Only NotStarted may be
// retried: a call that may have run is never started a second time on
// its caller's behalf.
//
// # Naming a call
//
// [Result.ID], [Result.Group] and [Result.Cgroup] name the call's tree,
// for an Engine to hand to its model, so that "stop my dev server" can
// end that call's tree — [Cmd.Kill] while it runs, [Cmd.EndReleased]
// after it was released — rather than a pkill that ends the agent.
//
// # Bad input
//
// A nil or already started *exec.Cmd, and a SysProcAttr that asks for a
// session (Setsid), another group (Pgid), a controlling terminal
// (Setctty, Foreground), a cgroup (UseCgroupFD) or a pidfd (PidFD) of its
// own, are refused by Start before anything runs. Calling the embedded
// exec.Cmd's Start is refused by Cmd's Start and Wait: its tree would not
// be contained.
//
// # Limits
//
//   - Group mode under a session started with --no-mark: a SIGKILL of
//     the starter leaves a running call (its group is not the Engine's,
//     and no mark leads the guard to it). Under starter.Run without
//     Options.Subreaper, the Engine's death leaves it too.
//   - Outside any session, a SIGKILL of the Engine leaves its calls
//     running: nothing else holds them (a helper process that parents
//     the calls is the planned answer). Run the Engine under
//     session-starter.
//   - Where orphans cannot be adopted (macOS, the portable build) and
//     there is no call cgroup, the leader's exit ends its tree as with
//     EndOnExit: released processes would be re-parented to init,
//     outside every session.
//   - macOS and FreeBSD: the guard finds no marked process, so a
//     group-mode call outlives a SIGKILL of the starter; and an escapee
//     of a call is reported ([Result.Escaped]) but not signalled by Kill
//     (without pidfds its number is not safe to signal): the session ends
//     it.
//   - Windows: the call's tree is a kill-on-close job of its own (the
//     leader created suspended, put into it, then resumed: no instruction
//     of the call runs outside it), nested in the session's job when there
//     is one; Kill terminates the job (there is no stop signal, so no
//     grace); a released call's job holds what it left, and [Cmd.Close]
//     clears the job's kill-on-close before closing it — a released
//     call's job still open when the Engine exits is closed by the
//     system, which ends what it held. No holder of a pipe is named.
//   - A released call in group mode is listed by a /proc scan (every PID
//     asked its group) made once, while the leader's exit holds the
//     group's number; in cgroup mode the cgroup is read instead.
package contain
