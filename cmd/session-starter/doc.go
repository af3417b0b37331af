// Command session-starter runs a program (the Engine) so that when the
// session ends — the Engine exits, the launcher dies, the control
// descriptor closes, a stop signal arrives — every process the Engine
// started ends too, and the launcher gets the Engine's exact exit status.
//
//	session-starter [flags] [--] PROGRAM [ARG...]
//
// This is the manual: the flags, the ack line and the status records, how
// a session is held and ended, the platforms, the containment modes,
// signals and the terminal, the ledger and --reclaim, limits, recipes, and
// the known gaps. README.md has the exit statuses and the first recipes;
// scripts/bench/NOTEBOOK.md what a session costs (`make bench` measures it).
//
// # Flags
//
// `session-starter --help` gives each flag one line; here each is in full.
// The first argument that is not a flag starts PROGRAM, as with `timeout` or
// `nohup`; `--` is needed only for a PROGRAM whose name starts with `-`.
// Everything from PROGRAM on is the Engine's command line, byte for byte.
// PROGRAM is looked up in `PATH` as execvp would, before anything starts.
//
// A duration D is read as coreutils `timeout` reads it: seconds, fractions
// and exponents allowed, with an optional suffix `s`, `m`, `h` or `d` (`10`,
// `.5`, `1.5m`, `1d`, `1e-1`). A Go duration (`1m30s`, `500ms`) works too. At
// most 100 years.
//
//	Flags:
//	Session end:
//	  --stdio
//	    The Engine is a stdio server (MCP, ACP, a language server):
//	    --watch-parent, and --watch-stdin where stdin is a pipe or a stream
//	    socket. Where it is not (a terminal, /dev/null, a file; on Windows any)
//	    stdin is not watched, and that is no error.
//	  --watch-parent
//	    End the session when the process that started session-starter is gone.
//	    Without --parent-pid the parent is what getppid() returns at start.
//	  --parent-pid P
//	    The launcher's own PID P. If session-starter's parent at start is not P,
//	    the launcher is gone already and nothing is executed (exit 125). Implies
//	    --watch-parent.
//	  --watch-stdin
//	    End the session when the launcher's end of the Engine's standard input is
//	    gone: a pipe's last writer closed, a stream socket's peer shut down. The
//	    Engine gets --stdin-grace to exit by itself first. A terminal, /dev/null,
//	    a file, a listening or datagram socket, or a pipe that a passed descriptor
//	    writes to is a usage error (2). Data the Engine has not read does not end
//	    it.
//	  --stdin-grace D (default 2s)
//	    With --watch-stdin or --stdio, how long D the Engine is given to exit by
//	    itself once its standard input hung up; then the session ends as on any
//	    stop. Without them it is a usage error (2).
//	  --control-fd N
//	    End the session when descriptor N reaches end of input; data read from it
//	    is ignored. N must be a pipe or stream socket passed open and not
//	    close-on-exec, greater than 2, not stdin's, and one no other passed
//	    descriptor writes to; else it is a usage error (2). The Engine does not
//	    inherit N.
//	  --timeout D (default 0)
//	    End the session D after the Engine was released; exit status 124 (as
//	    coreutils timeout), with a report on stderr. 0: no timeout.
//	Ending:
//	  -k, --grace D (default 0)
//	    On every end of the session, send --stop-signal and then SIGCONT to every
//	    process of the session at once, and SIGKILL what is left after D. The
//	    session's second stop signal during the grace goes straight to SIGKILL. 0:
//	    SIGKILL at once.
//	  -s, --stop-signal SIG (default TERM)
//	    The signal SIG that --grace sends first: a name (TERM, SIGINT, usr1) or a
//	    number.
//	  --kill-budget D (default 10s)
//	    After the grace, send SIGKILL in rounds for up to D, then report survivors
//	    (exit 125); the guard does the same. Must be more than 0. session-starter
//	    exits at most grace + kill budget + 250ms after the end began.
//	Containment and limits:
//	  --containment M (default auto)
//	    Hold the session in mode M: group (the process group plus the subreaper
//	    sweep), cgroup (also a cgroup v2 of its own), or auto (cgroup where one
//	    can be made, else group). Where cgroup mode is asked for and impossible,
//	    session-starter exits 125 and nothing is executed. A limit, --call-limits
//	    or --cgroup-parent asks for cgroup mode.
//	  --max-tasks N
//	    Let the session's tree have at most N tasks live at once, threads included
//	    (pids.max of the session cgroup; a Node or Go program runs several threads
//	    at rest): a fork beyond it fails with EAGAIN, and the ended record counts
//	    the forks refused. 0: no limit.
//	  --max-memory SIZE
//	    Let the session's tree use at most SIZE of memory, page cache included
//	    (memory.max; 512M, 2G, 1.5GiB: powers of 1024), and no swap unless
//	    --max-swap says how much; beyond it the kernel's OOM killer ends a process
//	    of the session, which the ended record and a line on stderr report.
//	  --max-swap SIZE
//	    With --max-memory, the swap SIZE the session's tree may use
//	    (memory.swap.max). Default 0: none.
//	  --max-cpu CPUS
//	    Let the session's tree use at most CPUS of CPU time (cpu.max over 100 ms
//	    periods): 0.5 or 50% is half of one CPU, 2 two CPUs; at least 0.01.
//	  --call-limits LIST
//	    Let the Engine's contained calls (Go package starter/contain) set the
//	    limits of the kinds in LIST (tasks, memory, cpu; comma-separated) for each
//	    call's own cgroup: their controllers are made available to the session
//	    cgroup as a session limit would, and nothing of the session is bounded.
//	    Not needed on Windows, where each call's job takes limits of its own.
//	  --cgroup-parent DIR
//	    Make the session cgroup in the cgroup v2 directory DIR (a delegated cgroup
//	    that holds no process) instead of below session-starter's own cgroup: the
//	    way for a launcher that starts many sessions from one cgroup to give them
//	    limits.
//	  --containers
//	    PROGRAM is a docker run or podman run command line: label its container
//	    with the session's id, and on every end have the same engine stop it with
//	    --grace, and remove it if made with --rm, before anything is signalled.
//	    -d, another subcommand or another program is a usage error. Not on
//	    Windows.
//	  --no-mark
//	    Leave the session mark (SESSION_STARTER_SESSION) out of the Engine's
//	    environment. Then the guard cannot find the processes that left the
//	    Engine's group after a SIGKILL of session-starter, and a nested session or
//	    contained call does not know its session.
//	  --release-on-exit
//	    When the Engine exits on its own, end nothing: what it left stays, for the
//	    enclosing session to end, and the ended record lists it (outcome
//	    released). Every other end ends everything. Needs an enclosing session,
//	    else it is a usage error. Not on Windows or macOS.
//	Records and diagnostics:
//	  --ack
//	    Write the ack line to stdout once containment exists, before PROGRAM runs.
//	  --status-fd N
//	    Write JSON records for launchers on descriptor N: started when the Engine
//	    is released, ended last. N must be one the launcher passed open for
//	    writing, greater than 2. The Engine does not inherit N.
//	  --log-level L (default warn)
//	    Diagnostics on stderr at level L: debug, info, warn, error, disabled.
//	  --log-format F (default auto)
//	    The diagnostics' format F: auto, json or console (zerolog). Failure
//	    reports are always one plain line "session-starter: …".
//	Other modes:
//	  --reclaim
//	    Run no PROGRAM: end what dead sessions of this user left behind, where
//	    session-starter and its guard were SIGKILLed together (the manual: the
//	    ledger). Prints what it ended and what it left, and writes a JSON record
//	    to --status-fd. Exit 0, or 125 when a process verified as a session's is
//	    left.
//	  --dry-run
//	    With --reclaim: list what would be ended, and end nothing.
//	  --end-released ID
//	    Run no PROGRAM: end what a call run with --release-on-exit left running.
//	    ID is the call's session id (its started record's session). Ends them with
//	    --stop-signal and --grace, then SIGKILL for up to --kill-budget, and
//	    writes a JSON record to --status-fd. Exit 0 when none is left, 125 when
//	    some are. Linux only.
//	  --explain
//	    Run no PROGRAM: print the mode --containment would give here and why,
//	    whether a session cgroup can be made, what --watch-parent would watch, the
//	    kernel features found, and with PROGRAM where PATH finds it. The other
//	    flags are read as for a session. Exit 0.
//	  --version
//	    Print the version and exit.
//	  -h, --help
//	    Print this help and exit.
//
// # The ack line and the status records
//
// With --ack, session-starter writes the first line of stdout once
// containment exists, before PROGRAM is executed:
//
//	{"session_containment":1,"pid":1234,"mode":"group"}
//
// `pid` is the Engine's PID and group; `mode` is `group` or `cgroup` on
// Linux, `job` on Windows, `reaper` on FreeBSD. A first line that is not this
// (or end of file) means no containment, and the exit status says why.
// Everything after it is the Engine's output.
//
// Once the Engine is released, session-starter points its own stdin and
// stdout at /dev/null, closes the other descriptors passed (but --control-fd
// and --status-fd) and moves to `/`. So the launcher reads end of file on
// stdout once the Engine's processes have all closed it.
//
// With --status-fd N, session-starter writes one JSON object a line on N.
// Fields are only ever added; a launcher ignores those it does not know.
//
//	{"event":"started","pid":4242,"pgid":4242,"mode":"group","guard_pid":4247,"time":"…","session":"0f5c…"}
//	{"event":"ended","reason":"engine-exit","executed":true,"exit_code":3,"signal":null,"outcome":"empty",…}
//
// The fields:
//
//   - `event`: `started` when the Engine is released (with `pid`, `pgid`,
//     `mode`, `guard_pid`, and `session`, the mark's id); `ended` last, also
//     when nothing was started.
//   - `reason`: `engine-exit`, `signal TERM`, `parent-gone`,
//     `control-closed`, `stdin-closed`, `timeout`, `guard-lost`,
//     `watch-failed`, or `failed` (see `report`, the line on stderr).
//   - `executed`: only `false` means nothing ran, and a call may be started
//     again. No `ended` record (a SIGKILLed session-starter writes none)
//     means it cannot be known.
//   - `exit_code` or `signal`: the Engine's code, or its signal's name; the
//     other is null. `core_dumped` is true when it dumped core.
//   - `outcome`: `empty`, `unconfirmed`, `survivors`, `refused`, or
//     `released` (--release-on-exit; `released` lists the PIDs left).
//   - `members_seen`, `escapees_seen`, `kill_rounds`, `graceful`,
//     `duration_ms`, `group_end_ms`: how the end went; `survivors`: each
//     process left (`pid`, `uid`, `state`, `comm`).
//   - `starter`: session-starter's own `exit_status`, and `signal`.
//   - `oom_kills`, `usage`: see "Limits and accounting".
//
// A file without `#!` runs under /bin/sh, as with execvp, and is no 126.
//
// # Processes
//
//	launcher ── starts ──> starter (Run)     the launcher's group/session
//	                        ├── guard          own group; ends E if the starter is gone
//	                        └── gate → Engine  leader of a NEW group E; the
//	                              └── …        starter's child, unreaped until
//	                                           E has no live member
//
// A session has three processes of its own:
//
//   - starter: it watches the Engine, the launcher, the control descriptor
//     and stop signals, ends the session and mirrors the Engine's status. As a
//     child subreaper it adopts the processes that leave group E. Children it
//     had before the session are reaped, never signalled.
//   - gate (`session-gate`): the leader of a new group E. It executes PROGRAM
//     on the go-ahead (same PID, same group), or exits if the starter is gone.
//   - guard (`session-guard`): if the starter is gone, SIGKILL included, it
//     ends the Engine, group E, the session cgroup and the marked processes.
//     What the Engine writes into its pipe cannot disarm it.
//
// PROGRAM runs only after the guard is armed, so no moment exists in which
// the Engine runs and nothing would end it.
//
// The end is one routine, in the starter and in the guard, with one
// deadline: grace plus kill budget. Its holders are the Engine, group E, the
// adopted escapees, and in cgroup mode the session cgroup. With --grace, the
// stop signal and SIGCONT go to every holder at once. Then SIGKILL goes to
// every holder, again after 50 ms, doubling to 500 ms, until all are empty or
// the deadline passes. A frozen Engine is reported, not waited for.
//
// On Linux every signal goes through a pidfd, so none reaches a process that
// merely reused a number. The launcher's group and the terminal's foreground group
// are never signalled.
//
// # Platforms
//
// Linux, Windows 10 or later, macOS, and FreeBSD 12 or later (64-bit) have
// the same flags, ack line, exit statuses and status records. The released
// builds are amd64 and arm64.
//
// Linux 5.4 or later is needed (`pidfd_open`, `waitid` with `P_PIDFD`).
// Newer kernels add:
//
//   - `PIDFD_SIGNAL_PROCESS_GROUP` (6.9): group signals through a pidfd;
//     before it, the guard pins E with a child (`session-pin` in `ps`).
//   - `cgroup.kill` (5.14): cgroup mode.
//   - `PIDFD_GET_INFO` (6.13): the grace's stop signal reaches the whole
//     session cgroup, not only the Engine, group E and the escapees.
//
// # Containment modes
//
// `--containment auto|group|cgroup` (default `auto`) says how a session is
// held on Linux. The mode in effect is in the ack line, the `started` record
// and the `session end` log event.
//
//   - group: the Engine's process group, plus the subreaper sweep of the
//     processes that left it. After a SIGKILL of session-starter the guard
//     ends group E, and the processes that left it by the session mark. One
//     that scrubbed its environment, or runs as another user, is not found.
//   - cgroup: as group, and the session gets a cgroup v2 of its own.
//     Everything the Engine starts is born in it, `setsid` and double forks
//     included. It is made below session-starter's own cgroup, named
//     `session-starter-PID-STARTTIME-N`; the Engine lives in its leaf
//     `engine`, each contained call in a cgroup beside it. Its end is
//     `cgroup.kill`; then it is removed.
//   - auto: cgroup where a session cgroup can be made and systemd does not
//     manage the starter's cgroup undelegated; else group (the reason at
//     log level `info`).
//
// `--containment cgroup` where that is impossible exits 125 with the reason
// and the fix, and nothing runs. The fix is root, or a delegated cgroup:
//
//	systemd-run --user --scope -p Delegate=yes session-starter --containment cgroup -- npm run dev
//
// `session-starter --explain [flags] [PROGRAM]` runs nothing and prints one
// `key: value` line a question (`mode`, `cgroup`, `parent`, `program`,
// `kernel`), with indented lines of why.
//
// Escapes that remain in cgroup mode: a privileged Engine can move itself to
// another cgroup, and work handed to a daemon outside the tree
// (`systemd-run`, a container engine) was never a descendant.
//
// # The session mark
//
// Every session adds its id, 32 hexadecimal digits, to one variable of the
// Engine's environment, `SESSION_STARTER_SESSION`. It is set to the id, or
// the inherited value extended with `:` and the id, so that it lists the
// sessions a process belongs to, outermost first. It is the one change to the
// environment, but for socket activation; --no-mark leaves it out, and turns
// off what needs it. The `started` record carries the id (`session`).
//
// The mark decides only in group mode once the starter is gone (the guard's
// end, a reclaim): in cgroup mode the cgroup decides, and while the starter
// lives group E and its sweep. A marked process is then ended only if it is
// this user's, started after the gate, and verified through a pidfd; one that
// cannot be verified is reported, never signalled.
//
// # Socket activation
//
// Where `LISTEN_PID` names session-starter itself (a service manager started
// it in place of the Engine), the gate sets it to its own PID, and
// `LISTEN_PIDFDID`, where present, to its pidfd's inode number (Linux 5.9+).
//
// # The ledger and --reclaim
//
// When the starter and the guard are SIGKILLed together — an OOM kill of the
// whole tree, a container stop, a crash of the host — what the session
// started is nobody's. So each session writes a record into a ledger before
// the Engine runs, and removes it at a clean end. A guard whose end leaves
// something keeps the record for a reclaim, with what its end came to
// (`guard_end`).
//
//   - Where: `/run/session-starter/` for root (on macOS and FreeBSD
//     `/var/run/session-starter/`); else `$XDG_RUNTIME_DIR/session-starter/`;
//     else `/tmp/session-starter-UID`; `SESSION_STARTER_LEDGER_DIR` names
//     another (absolute). It must be this user's alone, not a symlink. Where
//     none passes, the ledger is off (log level `info`), and the session runs.
//   - What: the boot id, the session's id, the PIDs of the starter, the guard
//     and the Engine with identity tokens, the group, the session cgroup, and
//     on Linux the namespaces these numbers belong to.
//
// `session-starter --reclaim` (with --dry-run, it only lists) reads this
// user's ledger. It takes only the sessions whose starter and guard are both
// gone by their tokens; a PID reused since counts as gone. For each, it ends
// the Engine if the live process at its PID has its token, then the session
// cgroup (`cgroup.kill`), or in group mode every live process that carries
// the session's mark, verified as the guard does. On macOS and FreeBSD it
// ends the Engine's descendants by lineage and the marked processes whose
// environment can be read. It removes the record unless a survivor is left.
//
// It never signals a process of another boot's record (dropped), of another
// namespace (`other-namespace`), a PID given to a stranger
// (`token-mismatch`), or one it cannot verify (`mark-unreadable`,
// `other-uid`). It prints one line a session, writes one JSON record
// (`"event":"reclaimed"`) to --status-fd, and exits 125 only when a process
// verified as a session's is left. Windows keeps no ledger: a job ends its
// processes when its last handle closes.
//
// # Limits and accounting
//
// `--max-tasks`, `--max-memory` (with `--max-swap`) and `--max-cpu` bound the
// session's whole tree through `pids.max`, `memory.max` and `cpu.max` of its
// session cgroup, written before the Engine runs and read back. A refusal or
// a missing controller exits 125, and nothing runs: a limit is never silently
// not applied. A limit makes `auto` require cgroup mode; `--containment
// group` with one is a usage error (2).
//
// A cgroup other than the root cannot both hold processes and enable
// controllers below it. So where session-starter is alone in its cgroup
// (`systemd-run --scope -p Delegate=yes …`, a container's init), it moves into
// a leaf of its own there (`session-starter-….supervisor`) and back at the
// end; where others share it, it exits 125 naming them. `--cgroup-parent DIR`
// makes the session cgroup in DIR, a delegated cgroup that holds no process,
// instead: the way for a launcher of many sessions. `--explain` says which.
//
// A SIGKILLed session-starter that had moved leaves its leaf and the
// controllers on (a scope or a container ends with it). Elsewhere, undo that
// before the next start there:
//
//	rmdir …/session-starter-….supervisor; echo -memory > …/cgroup.subtree_control
//
// Accounting, always: the `ended` record's `usage` has the tree's CPU time,
// exited processes included (`cpu_ms`, with `cpu_source`: `cpu.stat` in
// cgroup mode, `rusage` in group mode, a lower bound; `job` on Windows).
// Where the memory and pids controllers are enabled for the session cgroup,
// it also has `memory_peak_bytes`, `tasks_peak` and `forks_refused`, and
// `oom_kills` counts the OOM kills, with a line on stderr. The `reason` stays
// what it was: an OOM-killed Engine is `engine-exit` with signal `KILL`. A
// figure no counter tells is absent, never guessed.
//
// Per call: in a cgroup-mode session, `Cmd.Limits` of package starter/contain
// bounds a call's own cgroup. `--call-limits tasks,memory,cpu` makes the
// controllers available without bounding the session; without them the call
// fails to start, naming why.
//
// On Windows the session's job holds them: `--max-tasks` counts processes,
// `--max-memory` memory committed (an allocation beyond it fails), `--max-cpu`
// caps its CPU rate. `--max-swap` and `--cgroup-parent` there, and any limit
// under Wine, on macOS, FreeBSD or in the portable build, exit 125.
//
// # Engines that are containers: --containers
//
// A stdio server run as `docker run -i --rm IMAGE` outlives its client: the
// engine keeps the container running when the `docker` client dies.
// --containers makes the container the session's:
//
//	session-starter --stdio --containers --grace 5s -- docker run -i --rm IMAGE
//
// It adds `--label session-starter.session=ID` right after `run`, the one
// change to the command line (the `started` record shows it). Global options
// before `run` are read; an unknown one must be written `--opt=VALUE`. Usage
// errors (2): `-d`, another subcommand, that label given by hand, any other
// program (a shell in front is not read).
//
// Every end first has the same engine stop the labelled containers with
// --grace (whole seconds), and remove those made with `--rm`, within grace
// plus kill budget; only then are the client and the monitor signalled. After a SIGKILL
// of session-starter, the guard stops and removes them without grace, and so
// does --reclaim after both were SIGKILLed (--dry-run lists them). The ledger
// record names the engine: without one the start fails (125). Every action reads each
// container's label back by its full id first: another session's container is
// never touched. An engine that fails to stop them makes the outcome
// `survivors` (exit 125). Not on Windows.
//
// # The launcher's pipes: --watch-stdin
//
// --watch-parent watches the process that started session-starter: in many
// MCP configs a wrapper shell, `npx` or `uv run`, which outlives the client.
// What always ends with the client is its end of the server's stdin. With
// --watch-stdin, session-starter polls a duplicate of descriptor 0 for the
// hang-up only, and never reads it. On the hang-up the Engine gets
// --stdin-grace (2 s, as an MCP client waits before its SIGTERM) to exit by
// itself; its status is then mirrored, reason `engine-exit`. Then the session
// ends as on any stop, reason `stdin-closed`. A hang-up before the go-ahead
// counts too: `printf x | session-starter --watch-stdin -- cat` prints `x`.
// Refused as usage errors (2): stdin a terminal, `/dev/null`, a file, a
// listening or datagram socket, a pipe that a passed descriptor also writes
// to; a socket on macOS and FreeBSD. Through `sudo` with `use_pty`, the
// client's close still arrives as a hang-up.
//
// # Signals
//
// What each signal to session-starter does:
//
//   - SIGTERM, SIGINT, SIGHUP: end the session. The session's second one
//     during --grace goes straight to SIGKILL. An end begun otherwise (stdin,
//     the parent, a timeout) keeps its grace through the first. SIGHUP and
//     SIGINT the launcher left ignored (`nohup`, `cmd &` in a script) stay
//     ignored, for session-starter and for the Engine.
//   - SIGQUIT, and SIGILL, SIGTRAP, SIGABRT, SIGBUS, SIGFPE, SIGSEGV, SIGSYS,
//     SIGSTKFLT sent with kill: end the session as a stop does, then
//     session-starter dies of that signal (no traceback, no core; 128+S as
//     PID 1). The Engine's status is in the `ended` record.
//   - SIGUSR1, SIGUSR2, SIGWINCH, SIGCONT, SIGALRM: forwarded to the Engine's
//     group.
//   - SIGTSTP, SIGTTIN, SIGTTOU: passed on to the Engine's group, then
//     session-starter stops itself, so the job shows stopped with its Engine;
//     SIGCONT continues both, as with dumb-init. Left ignored by the launcher,
//     they stay ignored on Linux, for session-starter and the Engine.
//   - SIGSTOP stops session-starter only. SIGKILL ends it; the guard ends
//     the session. SIGPIPE costs one write. SIGXCPU, SIGXFSZ, SIGVTALRM,
//     SIGIO, SIGPWR, SIGPROF, SIGURG and real-time 35 and up: nothing.
//
// A stop signal before the go-ahead means nothing was executed, and
// session-starter dies of it. After it, the Engine's status is mirrored:
// death by SIGKILL without --grace, or what it did within the grace.
//
// The Engine starts with the launcher's signal mask, but for those the Go
// runtime unblocks (SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGCHLD, …). Of the
// signals the launcher ignored, only SIGHUP, SIGINT, the job stops (Linux)
// and real-time 32 and 34 stay ignored; the rest reach it at their default.
//
// # At a terminal
//
// Typed at a shell (`session-starter -- npm run dev`, stdout not a pipe), the
// Engine's group gets the terminal before the go-ahead: it reads the
// terminal, and Ctrl-C reaches it directly (its death by SIGINT is mirrored). Ctrl-Z
// stops the Engine; session-starter takes the terminal back and stops
// itself, so the shell shows the job stopped, and `fg` gives the terminal
// back. An Engine in a background job stopped by SIGTTIN or SIGTTOU is
// followed the same way. At the end session-starter takes the terminal back;
// after a SIGKILL of it, the guard does.
//
// # In CI scripts and as PID 1 of a container
//
// A CI step that starts a database or a browser in the background leaves it
// running when the step ends, fails or is cancelled. Wrap the step:
//
//	run: session-starter --watch-parent --grace 2s --timeout 20m -- make integration-test
//
// When the tests end or time out (124), each background process gets
// SIGTERM, then SIGKILL after 2 s. A cancelled GitHub Actions run signals the
// step's `bash` only; --watch-parent ends the session when it is gone, and
// `--grace 2s` fits in the 2.5 s the runner waits before it kills the tree.
//
// As the init of a PID namespace, session-starter reaps every orphan,
// `podman exec`'s included, and exits 128+S when the Engine dies of signal S.
// `podman stop -t N` sends SIGTERM: keep --grace under N. An unprivileged
// container's mode is group (its cgroup v2 is read-only), with the subreaper
// and the PID namespace.
//
// In a Kubernetes pod, with an image built from the README's Dockerfile:
//
//	apiVersion: v1
//	kind: Pod
//	metadata:
//	  name: agent
//	spec:
//	  terminationGracePeriodSeconds: 30
//	  restartPolicy: Never
//	  containers:
//	  - name: engine
//	    image: registry.example/agent:1
//	    command: ["/usr/local/bin/session-starter", "--grace", "25s", "--"]
//	    args: ["./serve"]
//
// `--grace 25s` ends inside the pod's 30 s.
//
// A stdio MCP server in a container, which a client runs as `podman run -i
// --rm my-mcp` or `docker run -i --rm my-mcp`:
//
//	FROM debian:stable-slim
//	COPY session-starter /usr/local/bin/session-starter
//	COPY server /usr/local/bin/server
//	ENTRYPOINT ["/usr/local/bin/session-starter", "--stdio", "--"]
//	CMD ["/usr/local/bin/server"]
//
// As PID 1, --stdio watches stdin only. When the client closes it, the server
// has the stdin grace to exit; then the session ends, and `--rm` removes the
// container.
//
// # A Go Engine: contain.IfRequested and contained calls
//
// A Go Engine that calls `contain.IfRequested()` first thing in `main`
// becomes its own session starter when its launcher sets
// `SESSION_STARTER_CONTAIN=1`:
//
//	func main() {
//		contain.IfRequested() // never returns when requested
//		serve(os.Stdin, os.Stdout)
//	}
//
// The process then behaves as `session-starter --ack --watch-parent -- <its
// own command line>`. Without the variable the call returns at once. The
// gate and the guard are a `session-starter` on `PATH` that speaks the same
// protocol, else the Engine's own binary: keep `init` free of side effects.
//
// Each tool call's command goes through `contain.Command` or `contain.Wrap`
// instead of os/exec (`go doc ./starter/contain` is the contract). Each call
// is a tree of its own, ended with it: a cancelled context or `Kill` ends it
// (Killed), and a leader that exits on its own releases what it left, which
// stays inside the session (Released, listed in `Result().Left`).
//
// An Engine in any language gets the same from the command line: each call
// is a session of its own, nested in the Engine's (`session-starter
// --timeout 30s --status-fd 3 -- sh -c '…'`), or the Node and Python
// packages' `call()`. With --release-on-exit, what the call leaves when it
// exits on its own stays, listed in the `ended` record, for the Engine's
// session to end, or for `session-starter --end-released ID` (Linux).
// `call()` reads output for at most 500 ms after the exit (`drain`), and
// keeps at most 100 MiB of each stream (`maxBuffer`).
//
// # Windows
//
// A job object with `JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE` holds the session,
// and is the gate and the guard at once:
//
//   - The Engine is created suspended inside the job, then the ack line is
//     written (mode `job`), then the Engine resumes. No breakaway is allowed.
//   - Only session-starter holds a handle to the job: however it ends, the
//     system closes the handle and ends every process of the job.
//   - The session ends as on Linux, and on Ctrl-C, Ctrl-Break or closing the
//     console. The rest of the job is terminated (exit code 1).
//   - --grace sends `CTRL_BREAK_EVENT` to the Engine's console process group
//     and waits up to D for the job to empty. A launcher without a console
//     gets an Engine with `CREATE_NO_WINDOW`; --grace then terminates the job
//     at once. --stop-signal has no meaning there.
//   - A `.cmd` or `.bat` PROGRAM runs through `cmd.exe` with quoting safe from
//     "BatBadBut"; an argument with a newline is refused (126).
//   - --control-fd and --status-fd take inheritable handle values the launcher
//     passed (Go `SysProcAttr.AdditionalInheritedHandles`; Python
//     `STARTUPINFO` `handle_list`). Node cannot pass a plain handle: use
//     --watch-parent --parent-pid.
//   - Exit statuses are Linux's; a stop before the Engine ran exits 125 (parent
//     gone, control closed) or 130 (Ctrl-C).
//
// # macOS and FreeBSD
//
// The same flags, ack line, exit statuses, status records, gate and guard.
// With no pidfds, every signal goes by number, and only where the number
// cannot name another process: the starter signals `-E` only while the
// Engine is its unreaped child, and the guard only while its pin is a member
// of E. Watchers are kqueue filters; the guard watches the starter by a pipe
// only the starter holds.
//
//   - FreeBSD: the starter is a reaper (`procctl(PROC_REAP_ACQUIRE)`, mode
//     `reaper`). The Engine's whole subtree is one more holder of the end,
//     listed by `PROC_REAP_GETPIDS` and ended by `PROC_REAP_KILL`.
//   - macOS has no subreaper (mode `group`). The processes that left group E
//     are found at the end by lineage: a process whose parent's unique process
//     id is the Engine's or one found before is the session's. So is one of
//     this user that started after the Engine and carries the session mark,
//     where macOS lets its environment be read. Each is signalled only after
//     its identity is read again and found the same (on macOS 14.4+ through
//     an audit token, which no reused PID matches). Another user's process,
//     and one whose identity cannot be read again, are survivors, never
//     signalled.
//   - After a SIGKILL of session-starter the guard looks for them in the same
//     way; with --no-mark it looks for none.
//   - `--containment cgroup` and every limit exit 125.
//
// # MCP and ACP clients
//
// A stdio server runs with --stdio. A client that closes ends the server's
// stdin, and the session ends a stdin grace (2 s) later; a client that dies
// ends it through the parent watch. In a pipeline, `producer |
// session-starter --stdio -- consumer` ends the consumer likewise.
//
// A client's config puts session-starter --stdio in front of the server.
// README.md has the config of Claude Desktop, Claude Code and Cursor. VS
// Code reads .vscode/mcp.json, where the list is servers and each server
// names its type:
//
//	{
//	  "servers": {
//	    "filesystem": {
//	      "type": "stdio",
//	      "command": "/usr/local/bin/session-starter",
//	      "args": ["--stdio", "--grace", "2s", "--",
//	               "npx", "-y", "@modelcontextprotocol/server-filesystem", "/home/me/src"],
//	      "env": { "PATH": "/usr/local/bin:/usr/bin:/bin" }
//	    }
//	  }
//	}
//
// Codex reads ~/.codex/config.toml, or .codex/config.toml in a project:
//
//	[mcp_servers.filesystem]
//	command = "/usr/local/bin/session-starter"
//	args = ["--stdio", "--grace", "2s", "--",
//	        "npx", "-y", "@modelcontextprotocol/server-filesystem", "/home/me/src"]
//	env = { PATH = "/usr/local/bin:/usr/bin:/bin" }
//
// Zed starts ACP agents from agent_servers in its settings.json:
//
//	{
//	  "agent_servers": {
//	    "claude-agent": {
//	      "type": "custom",
//	      "command": "/usr/local/bin/session-starter",
//	      "args": ["--stdio", "--grace", "2s", "--",
//	               "npx", "-y", "@zed-industries/claude-agent-acp"],
//	      "env": { "PATH": "/usr/local/bin:/usr/bin:/bin" }
//	    }
//	  }
//	}
//
// Give `command` as an absolute path, and an `env` whose `PATH` finds `npx`
// and `node`: an app started from a desktop menu lacks your shell's `PATH`.
//
// The SDK helpers below pass --stdio, and carry `XDG_RUNTIME_DIR`,
// `SESSION_STARTER_LEDGER_DIR` and `SESSION_STARTER_SESSION`, which the MCP
// SDKs' default environment drops, into the server's.
//
//   - Node (the npm package): `withSessionStarter(params)` turns the
//     TypeScript SDK's `StdioServerParameters` into parameters for its own
//     `StdioClientTransport`. `StdioSessionTransport` is a transport of the
//     SDK's shape whose pid is the Engine's. `launchAgent` starts an ACP
//     agent. The package imports neither SDK.
//   - Python (the wheel): `wrap_stdio_parameters(params)` does the same;
//     `stdio_client(params)` yields the read and write streams.
//   - Go: the module github.com/session-starter/session-starter/starter/mcp
//     has a Transport for the official Go SDK's client. Its Close ends the
//     server's stdin and waits for the session's end.
//
// # Known gaps
//
//   - A same-user Engine that means to escape can: SIGSTOP session-starter,
//     SIGKILL the guard, then session-starter. Only a boundary it cannot
//     cross holds it: another user, a PID namespace, a cgroup it cannot write.
//   - The Engine cannot call `setsid()`: it leads its own process group
//     (EPERM). Use `session-starter -- setsid -w PROGRAM`, which waits, so the
//     status is still PROGRAM's.
//   - When session-starter and its guard are SIGKILLed together, nothing ends
//     the session until `session-starter --reclaim` runs in its namespaces.
//   - Group mode's gap. After a SIGKILL of session-starter, a process that
//     left the group and lost the mark (a scrubbed environment, not dumpable
//     as `ssh-agent`, another user) survives; with --no-mark every one that
//     left does. A copy of the mark imported elsewhere (`systemctl --user
//     import-environment`, tmux, direnv) is ended then. cgroup mode closes both.
//   - The grace's stop signal goes out once, at the start of the end: a
//     process forked into the session after it, or forked just before it and
//     not yet executed, is ended by the SIGKILL at the grace's end. An Engine
//     that must end within the grace forks before it sets its trap, and waits
//     on its children without forking new ones once it has the signal.
//   - Not the Engine's, ended anyway: in group mode, an orphan of a child
//     session-starter had before; a process that joins group E from outside.
//   - Closed descriptors 0–2 reach the Engine as `/dev/null`.
//   - A signal before `main`, while the Go runtime starts (a millisecond):
//     SIGQUIT gives a Go traceback and exit 2, and as PID 1 any stop signal
//     exit 2; nothing was started.
//   - A gate killed between the go-ahead and its exec reads as the Engine's
//     death by SIGKILL. A very low `RLIMIT_NPROC` makes session-starter exit 2.
//   - Thousands of processes of one program on saturated cores, and on
//     FreeBSD a fork storm of `setsid` escapees, may outlast the kill budget
//     (survivors, 125).
//   - macOS: a process whose parent exited before the end began (the middle
//     of a double fork), or that was orphaned and then executed a program,
//     and whose mark is gone or unreadable, is neither found nor ended.
//   - The spawn helper of contained calls outside a session (Linux): a SIGKILL
//     of the helper ends only the calls' leaders, not what they started.
//   - Windows: a launcher that gives session-starter one pipe as stdout and
//     stderr reads end of file on it only when session-starter exits.
package main
