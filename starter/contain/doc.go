// Package contain is for Go Engines. It has two parts.
//
// # The requested form
//
// [IfRequested], called first thing in main, makes the program its own
// session starter when a launcher asks for it: the requested form. It
// returns at once otherwise.
//
// When asked, the process behaves as "session-starter --ack
// --watch-parent -- <its own command line>". It writes the ack line. It
// runs the same binary with the same arguments as the Engine, behind the
// gate and the guard. It exits with the Engine's status once every
// process of the session has ended. A launcher reads the ack line exactly
// as from session-starter (package starter/launch, [launch.ParseAck]).
//
// Failure rule: if containment cannot be established, the process exits
// 125 with one report line on stderr, and the Engine never runs. A helper
// binary of another protocol refuses, and the session fails the same way.
//
// # Contained calls
//
// [Command] and [Wrap] are os/exec for the commands an Engine runs per
// call: a Bash tool's shell, a test runner, "npm run dev &". The unit is
// the call's whole tree. A [Cmd] embeds *[exec.Cmd] and shadows Start,
// Wait, Run, Output and CombinedOutput.
//
// Each call is a tree of its own:
//   - It has its own process group on Unix: the leader is started with
//     Setpgid. On Windows it has its own kill-on-close job, nested in the
//     session's.
//   - In a session in cgroup mode, it has its own cgroup in the session
//     cgroup, beside the Engine's leaf. (This process is then the Engine,
//     in the session cgroup's leaf, or a call of it.) The call is born
//     there (CLONE_INTO_CGROUP): no instruction of the call runs outside
//     it. The session's cgroup.kill reaches it. [Cmd.Limits] bound it
//     there (on Windows, its job), and [Result.Usage] tells what it used.
//   - Under a session, the call carries the session mark
//     (SESSION_STARTER_SESSION in the environment). It does so even with
//     an Env of its own that left the mark out.
//   - Without a cgroup of its own, on Linux but the portable build, the
//     call adds an id of its own to the mark: in group mode, through the
//     spawn helper, or with no session. The id goes after the session's,
//     as a nested session's does, or alone where there is no session. So
//     its orphans are found (below). A program run as such a call sees
//     SESSION_STARTER_SESSION, even outside any session: a Go Engine run
//     as a call runs its own calls directly, inside the call's tree.
//
// A call receives its Stdin, Stdout and Stderr (/dev/null for a nil one)
// and its ExtraFiles (from 3 on), and no other descriptor, wherever it
// runs. Run directly, Start marks close-on-exec every other descriptor
// this process holds without it: one it inherited, or made inheritable.
// It clears the flag again once the call has started. So this process's
// plain children inherit them as before, but for one started in another
// goroutine during a call's Start. Pass a descriptor meant for a call in
// ExtraFiles. The spawn helper keeps only its socket. On macOS and
// FreeBSD a call also inherits those, as with os/exec.
//
// A call's orphans are the call's. A process of the call whose parent
// exited is re-parented to a subreaper: the session's starter, or the
// spawn helper. No walk from the leader finds it there. On Linux (but the
// portable build), without a call cgroup, the end and the release find it
// by the call's own mark. That is the call's id as an element of the
// mark, in a process of this user's, started at or after the leader, and
// verified through a pidfd (as the session's guard verifies the
// session's). In cgroup mode the call's cgroup decides, never the mark.
//
// An orphan is then ended with a Killed call. It is listed in
// [Result.Escaped], and in [Result.Survivors] if it outlived the budget.
// Or it is listed in [Result.Left] of a Released call, and ended by
// [Cmd.EndReleased]. A look that cannot be made (no descriptor to spare)
// is Wait's error, never an empty list; for a Killed call it wraps
// [ErrSurvivors].
//
// The cost per call is one random id. At its end, it reads the children
// of this process and of each of its ancestors (where an orphan is
// re-parented; at most 64), and each child's stat. It reads the
// environment of a child started after the leader. Only a call that left
// an orphan pays a scan of /proc, once per look of its end.
//
// Kill before reap, always. The leader's exit is observed without reaping
// it: its pidfd, from the fork, turns readable, and waitid WNOWAIT reads
// how it ended. The tree is ended or released while the leader's
// unreaped exit still holds its number, so the group's number cannot have
// been handed to another process. Only then does Wait reap the leader.
// The group is signalled through the leader's pidfd where the kernel can
// (Linux 6.9), else by number, safe for that reason. The end is the
// session's own end routine: the stop signal to the whole tree at once, a
// grace, SIGKILL rounds until it is empty, one deadline.
//
// # The ends
//
// A started call ends in one of two ways, named in [Result.Tree]:
//   - Killed: by a cancelled context, [Cmd.Kill], or the leader's own
//     exit with [Cmd.EndOnExit]. Every process of the tree is ended as
//     [Cmd.Ending] says: the stop signal, the grace, then SIGKILL within
//     the kill budget.
//     [ErrSurvivors] names what did not end.
//   - Released: the leader exited on its own. What it left running (a dev
//     server it started in the background) stays, and is listed in
//     [Result.Left]. It is still inside the session.
//
// What neither reached ends with the session. When the Engine exits or
// dies, or the session is stopped, every call's tree ends with it. In
// cgroup mode it ends as part of the session cgroup. In group mode it
// ends as the session's adopted escapees (session-starter is a
// subreaper). After a SIGKILL of the starter itself, the guard ends it
// through the session mark. Outside a session, the spawn helper plays
// that part (below). A process that outlives the session is not offered.
//
// # The spawn helper
//
// What the Engine can observe of a call it hands to its spawn helper, and
// what each outcome permits:
//   - The answer "started", with a PID: the call ran; the helper holds its
//     leader, PID, in a group of its own.
//   - The answer "spawn failed": nothing was executed. The call's outcome
//     is [NotStarted], and it may be started again.
//   - A send that failed, or a helper known gone before it: nothing was
//     queued, so the call goes to a second helper, or runs directly.
//   - Anything else (no answer in time, the connection's end): the call
//     is [Unclear], and is never started again, here or by the caller.
//
// An Engine under no session has nothing that would end its calls if it
// were SIGKILLed: SESSION_STARTER_SESSION is not in its environment. On
// Linux its calls' parent is then a spawn helper. That is one process per
// Engine, started on the first call that needs it, in a hidden mode of a
// binary:
//   - this process's own binary, when [IfRequested] ran. IfRequested
//     records that: a binary without that dispatch, run in the hidden
//     mode, would run a second copy of the Engine.
//   - else the session-starter found in PATH, if it speaks this protocol
//     (asked as for the requested form).
//
// The helper is a subreaper. It receives each call over a unix
// SOCK_SEQPACKET socketpair: path, arguments, environment, directory, and
// the call's stdin, stdout, stderr and extra files as SCM_RIGHTS. It
// starts the call with the same per-call rules: its own group, kill
// before reap, the one end routine. It answers "started" with the
// leader's PID (its group). It tells the Engine when the leader exited,
// still unreaped. Then it ends or releases the tree as the Engine asks
// ([Cmd.EndOnExit], a Kill), and reports how it ended.
//
// When its connection to the Engine closes, the helper ends everything it
// holds, then exits. The connection closes when the Engine exited, or
// died of SIGKILL. The helper holds the running calls' trees, what
// released calls left, and the orphans it adopted. Each leader is forked
// from one locked thread with a parent-death signal (PR_SET_PDEATHSIG,
// SIGKILL). It fires when that thread exits, and the thread lives as long
// as the helper. So a SIGKILLed helper takes the leaders with it.
//
// The helper tells which call an orphan it adopted belongs to by the
// call's id, which the Engine adds to the request's environment.
//
// A helped call's Process names its leader, found by PID while the helper
// holds it unreaped. Its ProcessState stays nil. Wait's error for a
// status other than 0 is an [*ExitError].
//
// Failure rules. A helper that cannot be started, does not say hello, or
// has died, is started once more for the call at hand. If that fails too,
// or no binary plays the helper, the call runs as this process's child.
// [NoticeDirect] is then in [Result.Notice], and on stderr once per
// process. A call is never refused for want of a helper, and never runs
// without one silently.
//
// Every step with the helper is bounded, from the moment a call is handed
// over:
//   - the request's send and the helper's answer: within 10 s together;
//   - each later message's send (a kill, a release): within 10 s;
//   - the report of the end it asked for, or an EndReleased's answer:
//     within the call's grace and kill budget, and 10 s more.
//
// A helper that misses a bound (stopped, or stuck) is SIGKILLed. The call
// is then lost, with [NoticeLost]. A request whose send ran out of time
// queued nothing: the call runs directly, with [NoticeDirect]. A kill or
// release that cannot be sent lets the helper go: its end of input comes,
// and it ends what it holds. [NoticeReleaseUnsent] says so for a release.
//
// # Output
//
// A Stdin, Stdout or Stderr that is not an *os.File goes through a pipe
// of this package's; exec starts no copying of its own. After the
// leader's exit (and the end or release), output is read for at most
// [Cmd.Drain] ([DefaultDrain]). A pipe still held open then, by a
// released process or an escapee, is closed. Wait's error then wraps
// [exec.ErrWaitDelay], naming the holders ([Result.PipeHolders]). Wait
// never hangs on a grandchild.
//
// [Cmd.StdinPipe], [Cmd.StdoutPipe] and [Cmd.StderrPipe] are exec's,
// wherever the call runs. The call's end is closed here at Start, so
// output read before Wait reaches end of file. Pipes made on an exec.Cmd
// before [Wrap] are closed only by its own Start: such a call runs
// directly, with [NoticeDirect].
//
// # Retries
//
// [Result.Executed] says whether the program ran:
//   - [NotStarted]: Start failed before the program was executed (a
//     refused Cmd, a program not found, a failed fork);
//   - [Started];
//   - [Unclear].
//
// Only NotStarted may be retried. A call that may have run is never
// started a second time on its caller's behalf.
//
// Through the spawn helper exactly three things prove that a call did not
// run. Each lets its request go to a second helper, or the call run
// directly:
//   - the helper was known gone before sending;
//   - not one byte of the request left this process: a seqpacket send
//     that fails, or runs out of time, queued nothing;
//   - the helper answered "spawn failed". Start then returns its error,
//     NotStarted.
//
// A request that may have reached a helper that then said nothing is
// never sent again. Start's error wraps [ErrUnclear], the outcome is
// Unclear, and [NoticeUnclear] is the call's notice.
//
// # Naming a call
//
// [Result.ID], [Result.Group] and [Result.Cgroup] name the call's tree,
// for an Engine to hand to its model. So "stop my dev server" can end
// that call's tree, rather than a pkill that ends the agent: [Cmd.Kill]
// while it runs, [Cmd.EndReleased] after it was released.
//
// # Bad input
//
// Start refuses, before anything runs:
//   - a nil or already started *exec.Cmd;
//   - a SysProcAttr that asks for a session (Setsid), another group
//     (Pgid), a controlling terminal (Setctty, Foreground), a cgroup
//     (UseCgroupFD) or a pidfd (PidFD) of its own.
//
// Cmd's Start and Wait refuse a call whose embedded exec.Cmd was started
// by its own Start: its tree would not be contained.
//
// # Known gaps
//
//   - Group mode under a session started with --no-mark: a SIGKILL of the
//     starter leaves a running call. Its group is not the Engine's, and no
//     mark leads the guard to it. Under starter.Run without
//     Options.Subreaper, the Engine's death leaves it too.
//   - A SIGKILL of the Engine leaves the call running outside any session
//     where there is no spawn helper (macOS, FreeBSD, Windows, the
//     portable build). So it does for a call that runs directly: no
//     helper could be started; or it has a SysProcAttr of its own, a nil
//     ExtraFiles entry, pipes made before Wrap, or a context given
//     through Wrap rather than Command, which the helper does not carry.
//     Run the Engine under session-starter.
//   - The spawn helper SIGKILLed: the parent-death signal ends each
//     call's leader, not what the leader started. Its group, escapees and
//     what a release left then live on. A helper stopped (SIGSTOP) after
//     it said "started" holds the call's Wait until it continues, or
//     until a Kill or a cancelled context, whose end is bounded as above.
//   - Without a call cgroup, an orphan whose mark cannot be read (not
//     dumpable, another user's), or that scrubbed its environment, is not
//     found by the call's mark. It is not the call's to end or list, and
//     ends with the session (or the spawn helper's end).
//   - Where orphans cannot be adopted (macOS, the portable build) and
//     there is no call cgroup, the leader's exit ends its tree as with
//     EndOnExit. Released processes would be re-parented to init, outside
//     every session.
//   - macOS and FreeBSD: after a SIGKILL of the starter, the guard ends
//     what of a call it finds as it finds the Engine's escapees, with
//     their limits: by lineage from the Engine, and by the mark where it
//     can be read. An escapee of a call is reported ([Result.Escaped]) but
//     not signalled by Kill: without pidfds its number is not safe to
//     signal. The session ends it.
//   - Windows: the call's tree is a kill-on-close job of its own, nested
//     in the session's job when there is one. The leader is created
//     suspended, put into it, then resumed: no instruction of the call
//     runs outside it. Kill terminates the job; there is no stop signal,
//     so no grace. A released call's job holds what it left. [Cmd.Close]
//     clears the job's kill-on-close before closing it. A released call's
//     job still open when the Engine exits is closed by the system, which
//     ends what it held. No holder of a pipe is named.
//   - Short of descriptors (fewer than 8 free below RLIMIT_NOFILE once
//     its pipes are made), a call in cgroup mode gets no cgroup of its
//     own. Its two descriptors could fail a start that group mode makes.
//     It runs in the Engine's leaf, inside the session cgroup, and
//     [Result.Cgroup] is empty. With Limits it fails instead.
//   - A released call in group mode is listed by one /proc scan (every
//     PID asked its group), made while the leader's exit holds the
//     group's number; its orphans by the call's mark. In cgroup mode the
//     cgroup is read instead.
package contain
