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
// the known gaps. README.md has the exit statuses and the first recipes.
//
// # Flags
//
// `session-starter --help` gives each flag one line; here each is in full.
// The first argument that is not a flag starts PROGRAM, as with `timeout` or
// `nohup`; `--` is needed only for a PROGRAM whose name starts with `-`.
// Everything from PROGRAM on is the Engine's command line, byte for byte.
//
//	Flags:
//	Session end:
//	  --stdio
//	      The Engine is a stdio server (MCP, ACP, a language server):
//	      --watch-parent, and --watch-stdin where stdin is a pipe or a stream
//	      socket. Where it is not (a terminal, /dev/null, a file; on Windows any)
//	      stdin is not watched, and that is no error. In a pipeline, producer |
//	      session-starter --stdio -- consumer ends the consumer a --stdin-grace
//	      after the producer's end.
//	  --watch-parent
//	      End the session when the process that started session-starter is gone.
//	      Without --parent-pid the parent is what getppid() returns at start.
//	  --parent-pid P
//	      The launcher's own PID P. If session-starter's parent at start is not P,
//	      the launcher is gone already and nothing is executed (exit 125). Implies
//	      --watch-parent.
//	  --watch-stdin
//	      End the session when the launcher's end of the Engine's standard input
//	      is gone: a pipe's last writer closed, a stream socket's peer shut down —
//	      what an MCP client's exit does, through wrapper shells and npx that
//	      --watch-parent cannot see past. The Engine gets --stdin-grace to exit by
//	      itself first. Standard input must be a pipe or FIFO no descriptor passed
//	      writes to, or a stream socket (Linux); a terminal, /dev/null, a file or
//	      a listening or datagram socket is a usage error (2). Data the Engine has
//	      not read does not end it.
//	  --stdin-grace D (default 2s)
//	      With --watch-stdin or --stdio, how long D the Engine is given to exit by
//	      itself once its standard input hung up (its own status is then mirrored,
//	      nothing signalled); then the session ends as on any stop. Without them
//	      it is a usage error (2).
//	  --control-fd N
//	      End the session when descriptor N reaches end of input; data read from
//	      it is ignored. N must be a pipe or stream socket the launcher passed
//	      open and not close-on-exec, greater than 2, and not the same pipe or
//	      socket as stdin; no descriptor passed may write to the same pipe or
//	      FIFO, or be the other end of N's socket pair, since N could then never
//	      reach end of input. Otherwise it is a usage error (2). The Engine does
//	      not inherit N.
//	  --timeout D (default 0)
//	      End the session D after the Engine was released; exit status 124 (as
//	      coreutils timeout), with a report on stderr. 0: no timeout.
//	Ending:
//	  -k, --grace D (default 0)
//	      On every end of the session, send --stop-signal and then SIGCONT to
//	      everything that holds the session at the same moment (the Engine, its
//	      group, the processes that left it, the session cgroup with the cgroups
//	      below it), each live process once however many of those hold it, and
//	      SIGKILL what is left after D. The session's second stop signal during
//	      the grace goes straight to SIGKILL; the first may be the one that began
//	      the end. 0: SIGKILL at once.
//	  -s, --stop-signal SIG (default TERM)
//	      The signal SIG that --grace sends first: a name (TERM, SIGINT, usr1) or
//	      a number.
//	  --kill-budget D (default 10s)
//	      After the grace, send SIGKILL in rounds for up to D before reporting
//	      survivors (exit 125); the guard does the same. Must be more than 0. The
//	      whole end, grace plus kill budget, is one deadline, in every mode:
//	      session-starter exits at most grace + kill budget + 250ms after the end
//	      began.
//	Containment and limits:
//	  --containment M (default auto)
//	      Hold the session in mode M: group (the process group plus the subreaper
//	      sweep), cgroup (also a cgroup v2 of its own), or auto (cgroup where one
//	      can be made, else group). Where cgroup mode is asked for and impossible,
//	      session-starter exits 125 and nothing is executed. A limit,
//	      --call-limits or --cgroup-parent asks for cgroup mode.
//	  --max-tasks N
//	      Let the session's tree have at most N tasks live at once, threads
//	      included (pids.max of the session cgroup; a Node or Go program runs
//	      several threads at rest): a fork beyond it fails with EAGAIN, and the
//	      ended record counts the forks refused. 0: no limit.
//	  --max-memory SIZE
//	      Let the session's tree use at most SIZE of memory, page cache included
//	      (memory.max; 512M, 2G, 1.5GiB: powers of 1024), and no swap unless
//	      --max-swap says how much; beyond it the kernel's OOM killer ends a
//	      process of the session, which the ended record and a line on stderr
//	      report.
//	  --max-swap SIZE
//	      With --max-memory, the swap SIZE the session's tree may use
//	      (memory.swap.max). Default 0: none.
//	  --max-cpu CPUS
//	      Let the session's tree use at most CPUS of CPU time (cpu.max over 100 ms
//	      periods): 0.5 or 50% is half of one CPU, 2 two CPUs; at least 0.01.
//	  --call-limits LIST
//	      Let the Engine's contained calls (Go package starter/contain) set the
//	      limits of the kinds in LIST (tasks, memory, cpu; comma-separated) for
//	      each call's own cgroup: their controllers are made available to the
//	      session cgroup as a session limit would, and nothing of the session is
//	      bounded. Not needed on Windows, where each call's job takes limits of
//	      its own.
//	  --cgroup-parent DIR
//	      Make the session cgroup in the cgroup v2 directory DIR (a delegated
//	      cgroup that holds no process) instead of below session-starter's own
//	      cgroup: the way for a launcher that starts many sessions from one cgroup
//	      to give them limits.
//	  --containers
//	      PROGRAM is a docker run or podman run command line (global options
//	      before run allowed): label its container with the session's id, and on
//	      every end have the same engine stop it with --grace, and remove it if
//	      made with --rm, before anything is signalled. The engine gets up to
//	      grace + kill budget for that, before the end's own deadline starts. This
//	      label is the one change made to the command line; the started record
//	      shows the line as run. -d, another subcommand or another program (a
//	      shell, a script) is a usage error. After a SIGKILL of session-starter,
//	      its guard and --reclaim stop and remove them without grace. Not on
//	      Windows.
//	  --no-mark
//	      Leave the session mark out of the Engine's environment. Without it, the
//	      session's id is added to SESSION_STARTER_SESSION (set to the id, or the
//	      inherited value extended with ":" and the id): the one change to the
//	      environment, by which the guard finds, after a SIGKILL of
//	      session-starter, the processes that left the Engine's group (on macOS
//	      and FreeBSD beside their lineage, which the guard then no longer follows
//	      either; on macOS the end too), and a nested session or contained call
//	      knows its session.
//	  --release-on-exit
//	      When the Engine exits on its own, end nothing: what it left running
//	      stays, for the enclosing session to end, and the ended record lists it
//	      (outcome released). Every other end of the session ends everything, as
//	      always. Needs an enclosing session (SESSION_STARTER_SESSION in the
//	      environment), else it is a usage error: this is the form of one tool
//	      call as a session, nested in the Engine's. Not on Windows or macOS (no
//	      subreaper: what it released would leave every session).
//	Records and diagnostics:
//	  --ack
//	      Write the ack line to stdout once containment exists, before PROGRAM
//	      runs.
//	  --status-fd N
//	      Write JSON records for launchers on descriptor N: started when the
//	      Engine is released, ended last. N must be one the launcher passed open
//	      for writing, greater than 2. The Engine does not inherit N.
//	  --log-level L (default warn)
//	      Diagnostics on stderr at level L: debug, info, warn, error, disabled.
//	  --log-format F (default auto)
//	      The diagnostics' format F: auto, json or console (zerolog). Failure
//	      reports are always one plain line "session-starter: …".
//	Other modes:
//	  --reclaim
//	      Run no PROGRAM: end what dead sessions of this user left behind, where
//	      session-starter and its guard were SIGKILLed together. Reads the ledger
//	      of live sessions (see the manual), takes only sessions whose starter and
//	      guard are both shown gone (by identity token, never by PID alone), and
//	      ends each one's Engine where its PID still has its token, then its
//	      cgroup, or in group mode every process that carries its mark, verified
//	      on the live process (on macOS and FreeBSD the Engine's descendants by
//	      lineage and the marked processes whose environment can be read; Windows
//	      keeps no ledger); prints what it ended and what it left, with the
//	      reason, and writes them as a JSON record to --status-fd. Exit 0, or 125
//	      when a process verified as a session's is left; a reused PID or a
//	      refused record is reported, not 125.
//	  --dry-run
//	      With --reclaim: list what would be ended, and end nothing.
//	  --end-released ID
//	      Run no PROGRAM: end what a call run with --release-on-exit left running.
//	      ID is the call's session id (its started record's session). Ends this
//	      user's processes whose mark carries ID, each through a pidfd after
//	      checking it again, and what they start meanwhile: --stop-signal and
//	      --grace first, then SIGKILL for up to --kill-budget. Writes a JSON
//	      record to --status-fd. Exit 0 when none is left, 125 when some are.
//	      Linux only.
//	  --explain
//	      Run no PROGRAM: print the mode --containment would give here and why (a
//	      session's own decision), whether a session cgroup can be made and what
//	      to do if not, whether the parent --watch-parent would watch is a shell
//	      or a package runner (npx, uvx) in front of the launcher, and the kernel
//	      features found; with PROGRAM, where PATH finds it. The other flags are
//	      read as for a session. Exit 0.
//	  --version
//	      Print the version and exit.
//	  -h, --help
//	      Print this help and exit.
//
// A duration D is read as coreutils `timeout` reads it — seconds, fractions
// and exponents allowed, with an optional suffix `s`, `m`, `h` or `d` (`10`,
// `.5`, `1.5m`, `1d`, `1e-1`, `2.34e-5d`) — or as a Go duration (`1m30s`,
// `500ms`). At most 100 years. A positive D shorter than a nanosecond
// (`1e-10000`, `0.1ns`) is 1ns, never 0: a timeout fires at once.
// Package starter/launch reads them the same way ([launch.ParseDuration]).
//
// The control descriptor's open file is never changed under the launcher:
// on Linux a pipe is reopened through `/proc/self/fd/N` as a private
// non-blocking open file and a socket is read with `MSG_DONTWAIT` (macOS and
// FreeBSD: below). A descriptor passed that can write to the same pipe or
// FIFO (N itself, say `exec 3<>fifo`), or the other end of N's socket pair
// where the kernel can name it (`unix_diag`), is refused: N could never
// reach end of input.
//
// # The ack line and the status records
//
// With --ack, session-starter writes the first line of stdout once
// containment exists, before PROGRAM is executed:
//
//	{"session_containment":1,"pid":1234,"mode":"group"}
//
// `pid` is the Engine's PID and process group; `mode` is `group` or
// `cgroup` on Linux, `job` on Windows, `reaper` on FreeBSD. The keys come in
// this order. A first line that is not this (or end of file) means no
// containment, and the exit status says why. Everything after it is the
// Engine's output.
//
// Once the Engine is released, session-starter points its own stdin and
// stdout at /dev/null, closes the other descriptors the launcher passed (but
// --control-fd and --status-fd) and moves to `/`. So the launcher reads end
// of file on stdout when the Engine's processes have all closed it, and no
// mount is kept busy. Stderr stays session-starter's, for its reports. A
// launcher that stops reading costs session-starter its writes (EPIPE),
// never the session.
//
// With --status-fd N, session-starter writes one JSON object a line on N.
// Fields are only ever added; a launcher ignores those it does not know.
//
//	{"event":"started","pid":4242,"pgid":4242,"mode":"group","guard_pid":4247,"time":"…","session":"0f5c…"}
//	{"event":"ended","reason":"engine-exit","executed":true,"exit_code":3,"signal":null,"outcome":"empty",…}
//
// The fields:
//
//   - `event`: `started` when the Engine is released; `ended` last, also when
//     nothing was started.
//   - `pid`, `pgid`, `mode`, `guard_pid`: the Engine, its group, the mode,
//     the guard.
//   - `session`: in `started`, the session's id in the session mark; absent
//     with --no-mark.
//   - `reason`: what ended the session: `engine-exit`, `signal TERM`,
//     `parent-gone`, `control-closed`, `stdin-closed`, `timeout`,
//     `guard-lost`, `watch-failed`, or `failed` (see `report`).
//   - `executed`: whether PROGRAM was executed. Only `false` means nothing
//     ran, and a call may be started again. No `ended` record at all (a
//     SIGKILLed session-starter writes none) means it cannot be known.
//   - `exit_code` or `signal`: the Engine's code, or its signal's name; the
//     other is null. `core_dumped` is true when it dumped core.
//   - `outcome`: `empty`, `unconfirmed`, `survivors`, `refused`, or
//     `released` (--release-on-exit; `released` lists the PIDs left).
//   - `members_seen`, `escapees_seen`: lower bounds of the live members and
//     of the adopted escapees one look found.
//   - `kill_rounds`, `graceful`: SIGKILL rounds that reached a holder; true
//     when all ended within --grace.
//   - `survivors`: each process left after the kill budget: `pid`, `uid`,
//     `state`, `comm`.
//   - `duration_ms`, `group_end_ms`: the whole session; its end.
//   - `starter`: session-starter's own `exit_status`, and `signal` when it
//     dies of the Engine's signal.
//   - `report`: the line written to stderr, if any.
//   - `oom_kills`, `usage`: see "Limits and accounting".
//
// The exit statuses are README.md's table. A file without `#!` that the
// kernel refuses (ENOEXEC) runs under /bin/sh, as with execvp, and is no
// 126. A signal death is mirrored without a core file or a Go traceback.
//
// # Processes
//
//	launcher ── starts ──> starter (Run)     the launcher's group/session
//	                        ├── guard          own group; ends E if the starter is gone
//	                        └── gate → Engine  leader of a NEW group E; the
//	                              └── …        starter's child, unreaped until
//	                                           E has no live member
//
// The three processes of a session:
//
//   - starter: the `session-starter` process. It watches the Engine, the
//     launcher, the control descriptor and stop signals, then ends the session
//     (below) and mirrors the Engine's status. It is a child subreaper
//     (`PR_SET_CHILD_SUBREAPER`): processes that leave group E are re-parented
//     to it, reaped as they exit, and ended with the session. Children it had
//     before it started the gate (a wrapper's `job & exec session-starter …`)
//     are not the session's: reaped when they exit, never signalled.
//   - gate: the leader of a new process group E that waits for the
//     go-ahead and then `execve`s PROGRAM (same PID, same group). If the starter
//     is gone first, the gate exits without executing anything. On Linux 5.9+
//     (amd64 and arm64) the gate is a fork of the starter that runs no Go
//     runtime of its own: between the runtime's fork hooks it makes only
//     system calls — lead group E, join the session cgroup, close every
//     descriptor but the Engine's and its own two pipes (`close_range`), wait,
//     put back the open-files limit the process started with, `execve`
//     (ENOEXEC: `/bin/sh`, as execvp). It has its own copy of the starter's
//     memory (until the exec /proc/PID/environ shows the starter's
//     environment). Its command name is `session-gate` until the exec.
//     Elsewhere (an older kernel, another architecture, a Go release the raw
//     children are not proven on, the build tag `session_starter_noraw`) the
//     starter starts its own binary again in a hidden mode; that gate gets the
//     Engine's command line and environment in a memfd, not on its own command
//     line, so any Engine command line with which session-starter itself could
//     be executed starts (only the kernel's copy of PROGRAM's path is added, as
//     in any exec).
//   - guard: a process in its own process group, named `session-guard`. If
//     the starter is gone — SIGKILL included — the guard ends the Engine, group
//     E and the session cgroup (SIGKILL in rounds until all are empty or the
//     whole end's deadline). On Linux 6.9+ it starts as a fork of the starter
//     that runs no Go runtime (one thread; it shows the starter's environment
//     in /proc/PID/environ): it strikes every holder with SIGKILL at once, three
//     rounds, without waiting for a Go runtime to start (which is what fails
//     under the RLIMIT_NPROC or memory pressure that often kills a starter).
//     The marked processes are among the holders it strikes, verified as the
//     guard proper verifies them. It goes on while it finds any: escapees that
//     hold every slot of the user's process limit leave no room for a runtime.
//     Then it executes this binary, opened when it was armed (never by path), to
//     verify and end the rest with the same end routine as the starter's;
//     where that cannot be executed it strikes on by itself. Before 6.9, and
//     on macOS and FreeBSD, it is this binary again in a hidden mode from the
//     start. It obeys the starter's "finish" only once it has seen all of them
//     empty itself: a finish written into its pipe by a same-user Engine
//     (through `/proc/GUARD/fd`) does not disarm it, and after survivors it
//     keeps guarding and ends them again once the starter has exited. It reads
//     its pipe only as far as poll shows, while watching the starter, so a
//     partial message cannot stall it. A guard stopped with SIGSTOP is
//     continued as soon as the starter is told (SIGCHLD), and a warning says
//     so; at the end of the session it is reaped, and one that then does not
//     exit is reported (exit 125).
//
// The end. Every end of a session — the Engine's exit, a stop signal, the
// launcher gone, the control descriptor closed, `--timeout` — is one routine
// (package `internal/end`), in the starter and in the guard; the guard's
// first strikes after a starter SIGKILL are paced by the same constants.
// The session is held by a list of holders: the Engine itself (its pidfd: an Engine that
// moved into another group is ended all the same), group E, the processes that
// left it and were adopted (and the groups they lead), and in cgroup mode the
// session cgroup with every cgroup below it. One deadline for the whole end:
// grace + kill budget. With a grace, the stop signal and SIGCONT go to every
// holder at the same moment, group E first, and to each live process once
// however many holders hold it (`TestTheEngineGetsTheGracesStopSignalOnce`);
// then SIGKILL to every holder at the same moment,
// again after 50 ms, doubling up to 500 ms, until all are empty or the
// deadline; then one outcome (`empty`, `unconfirmed`, `survivors`, `refused`)
// and one survivor list. Between looks the end sleeps in poll on what the
// kernel announces (the Engine's pidfd, `cgroup.events`, SIGCHLD); only group
// E, whose last exit nothing announces, is looked at again after a backoff
// (250 µs doubling to 20 ms). The Engine is reaped by one owner, within the
// deadline: an Engine that cannot be killed (frozen) is reported, not waited
// for.
//
// Escapees of escapees. The adopted escapees are looked at again at every look
// (each SIGCHLD, each backoff), and one adopted since is signalled at the look
// that finds it, not at the next round. The signal reaches their descendants
// too, found top-down in `/proc/PID/task/*/children`, each opened as a pidfd
// and checked to be its parent's child; SIGKILL stops that tree first
// (SIGSTOP, top-down: a stopped process can neither fork nor reap), then kills
// it, then continues what is left. So a chain of `setsid` escapees 30 deep, a
// tree of 2,047 and a `setsid` fork storm held at 60 tasks end in one go
// (`TestANestedChainOfSetsidEscapeesEndsWithinTheBudget`,
// `TestASetsidForkStormOfEscapeesEnds`; `scripts/bench/escapee-tree.sh`).
//
// PROGRAM is executed only after the guard is armed on E, so there is no moment at
// which the Engine runs and nothing would end it. Every signal to E goes through a
// pidfd with `PIDFD_SIGNAL_PROCESS_GROUP`, so it cannot reach a process that
// merely reused a number. A process that left E is signalled only through a pidfd
// opened while it is session-starter's own unreaped child, and the group it leads
// only if that group is not session-starter's, the guard's, the launcher's or the
// terminal's foreground group.
//
// # Platforms
//
// Linux, Windows 10 or later (Server 2016 or later), macOS, and FreeBSD 12
// or later have the same flags, ack line, exit statuses and status records.
// Linux holds a session by its process group and a subreaper, or a cgroup;
// Windows by a kill-on-close job object (mode `job`, see "Windows"); FreeBSD
// by a reaper (mode `reaper`); macOS by the group and the lineage (mode
// `group`, see "macOS and FreeBSD"). The released builds are amd64 and arm64;
// a 32-bit FreeBSD build refuses every session (exit 125).
//
// Linux 5.4 or later: session-starter uses `pidfd_open` (Linux 5.3) and
// `waitid` with `P_PIDFD` (5.4). Newer kernels add:
//
//   - `PIDFD_SIGNAL_PROCESS_GROUP` (6.9): group signals through a pidfd, which
//     cannot reach a reused number even after the Engine was reaped, and a
//     group end confirmed without a /proc scan. Before 6.9 the starter signals
//     `-E` only while the Engine is its unreaped child, and the guard pins E
//     with a child of its own (the pin, `session-pin` in `ps`) that joins E and
//     stays a member until the guard's last signal. This path is tested by
//     emulating an old kernel with a seccomp filter.
//   - `cgroup.kill` (5.14): cgroup mode.
//   - `PIDFD_GET_INFO` (6.13): in cgroup mode, `--grace` signals each member of
//     the session cgroup, checked through its pidfd to be in it; before, the
//     stop signal reaches the Engine, group E and the adopted escapees, not
//     the rest of the cgroup (`cgroup.kill` still reaches all).
//
// Tested on real kernels: 6.18, and Debian's 6.1, 6.12 and 7.3 booted under
// QEMU (`make test-kernels`); what older kernels lack is tested by emulation.
//
// # Containment modes
//
// `--containment auto|group|cgroup` (default `auto`) says how the session is
// held on Linux. The mode in effect is in the ack line (`"mode"`), the
// `started` status record and the `session end` log event.
//
//   - group: the Engine's process group, plus the subreaper sweep of the
//     processes that left it (above). If session-starter itself is
//     SIGKILLed, the guard ends group E, and the processes that left it by
//     the session mark (below). Limit: one that scrubbed its environment
//     (`env -i`), or runs as another user, is not found.
//   - cgroup: as group, and the session also gets a cgroup v2 of its own.
//   - *Where*: a child of session-starter's own cgroup (`/proc/self/cgroup`,
//     the `0::` line) in the cgroup2 mount found in `/proc/self/mountinfo`
//     (here the hybrid mount at `/sys/fs/cgroup/unified`), named
//     `session-starter-PID-STARTTIME-N`: the starter's PID, its start time
//     (`/proc/self/stat` field 22) and a per-process number. A child rather
//     than a sibling: where the starter may write its own cgroup it may make
//     children, and a fresh child has no controllers enabled below it, so the
//     "no internal processes" rule of delegated trees never refuses the move.
//     The session cgroup itself holds no process: the Engine lives in its
//     leaf `engine`, and each contained call (package starter/contain) in a
//     cgroup of its own beside it, so that the session cgroup may enable
//     controllers for them — per-call limits and usage — which that rule
//     forbids a cgroup holding processes
//     (`TestTheSessionCgroupHoldsNoProcessAndMayEnableControllersBelowIt`).
//   - *Joining*: the raw gate is born in the session cgroup's `engine` leaf
//     (`clone3` with `CLONE_INTO_CGROUP`, Linux 5.7); the re-executed gate,
//     and the raw one where `clone3` is refused, write their own PID to the
//     leaf's `cgroup.procs` (a descriptor handed to them) before
//     they report ready. Linux (seen on 6.12 and 6.18, not on 6.1 or 7.3)
//     SIGKILLs a child born with `CLONE_INTO_CGROUP` when the `cgroup.kill`
//     count of its cgroup differs from that of its parent's, so a starter
//     whose own cgroup ever saw `cgroup.kill` loses such a gate before it
//     runs: the starter then starts the gate once more, joining by
//     `cgroup.procs`, and so does every later gate of that process (nothing
//     was executed; it costs one fork).
//     The starter reads `/proc/GATE/cgroup` before the guard is relied on.
//     Everything the Engine starts is born in it, `setsid` and double forks
//     included.
//   - *End*: the cgroup is one holder of the end (above): SIGKILL is
//     `cgroup.kill`, sent in every round with the other holders (one write was
//     seen to leave members alive under load on this kernel), and its end is
//     `populated 0` in `cgroup.events` (told by `poll(POLLPRI)`, read again
//     after each wake-up, no tick); then the cgroup is removed. With
//     `--grace`, `--stop-signal` and SIGCONT go to each process of the
//     `cgroup.procs` of the session cgroup and of every cgroup below it,
//     through a pidfd whose cgroup id (`PIDFD_GET_INFO`, Linux 6.13) is
//     checked to be one of those; before 6.13 the stop signal reaches the
//     other holders only.
//   - *Starter SIGKILLed*: the guard holds directory descriptors of the
//     session cgroup and of its parent (never a path); it ends the cgroup with
//     the Engine and group E, as the starter does, and removes the cgroup.
//     Escapees die too.
//   - *Leftovers*: at start, session cgroups in the same parent whose starter
//     (PID and start time from the name) no longer lives and which are empty
//     are removed; a live session's cgroup is never touched.
//   - auto: cgroup where a cgroup2 mount is writable, the session cgroup
//     can be made and written, and systemd does not manage the starter's cgroup
//     (systemd is not init, or the cgroup is delegated: `trusted.delegate` or
//     `user.delegate`); else group, with the reason at log level `info`.
//     A session cgroup that comes out `domain invalid` (the starter's cgroup
//     is part of a threaded subtree: threaded, or the root of one beside its
//     processes), which no process could join, is removed and is such a
//     reason (`TestInAThreadedCgroupAutoFallsBackAndCgroupRefusesSayingWhy`).
//     `--containment cgroup` where that is impossible exits 125 with the
//     reason and the fix (root, or a delegated cgroup:
//     `systemd-run --user --scope -p Delegate=yes session-starter …`), and
//     nothing is executed.
//
// `session-starter --explain [flags] [PROGRAM]` answers these questions
// without running anything: the mode the flags give here and why (the
// decision a session makes, a session cgroup made and removed again to
// know), whether a session cgroup can be made and what to do if not,
// whether the parent `--watch-parent` would watch is a shell, a package
// runner (npx, uvx) or sudo in front of the launcher, where `PATH` finds
// PROGRAM, and the kernel features found. One `key: value` line per
// question (`mode`, `cgroup`, `parent`, `program`, `kernel`), indented lines
// of why; exit 0.
//
// Escapes that remain in cgroup mode: a privileged Engine can move itself
// to another cgroup (group E and the sweep still apply to it); work handed to
// daemons outside the tree (`systemd-run`) was never a descendant. A
// container's engine is such a daemon: `--containers` has it end the
// container (see "Engines that are containers"). Tested in
// `cmd/session-starter/cgroup_linux_test.go`.
//
// # The session mark
//
// Every session adds its id — 128 random bits as 32 hexadecimal digits — to
// one variable of the Engine's environment, `SESSION_STARTER_SESSION`: set
// to the id, or the inherited value (an enclosing session's) extended with
// `:` and the id, so that it lists the sessions a process belongs to,
// outermost first. That is the one change to the environment a direct
// launch would give, but for socket activation (below); `--no-mark` leaves
// it out (and turns off what needs it). The `started` status record carries the id (`session`). Every
// descendant of the Engine inherits it unless it scrubs its environment.
// A Go Engine's contained call without a cgroup of its own (package
// starter/contain: group mode, its spawn helper) adds an id of its own
// the same way, after the session's or alone, by which the call's orphans
// are found and ended with it or listed.
//
// One rule says which processes are the session's. A process is when it
// is in group E or the session cgroup, or descends from the Engine (the
// subreaper sweep, lineage). Where a mode has nothing stronger, it is also
// the session's when it carries the mark, is this user's, started after the
// gate, and was verified through a pidfd. The stronger evidence decides
// first. In cgroup mode the cgroup alone decides, in the guard and in
// `--reclaim`; the mark never does. While the starter lives, group E and
// its sweep decide. The mark decides only in group mode once the starter is
// gone: the guard's end, a reclaim. A candidate that cannot be verified is
// reported, never signalled. A stranger that got a copy of the mark's value
// from an environment importer (`systemctl --user import-environment`,
// tmux's `update-environment`) is spared wherever there is stronger
// evidence (`TestTheGuardSparesACopyOfTheMarkInCgroupMode`,
// `TestReclaimSparesACopyOfTheMarkInCgroupMode`,
// `TestAnEndSparesACopyOfTheMarkWhileTheStarterLives`); in group mode after
// a starter SIGKILL it is not (Limits). A contained call follows the same
// rule: its cgroup where it has one, else its group, then the call's own
// mark with the same checks. The porch, the guard proper and a call's end
// apply the mark's checks alike; a process that carries the mark but
// cannot be verified (not dumpable, another user's) is never signalled.
//
// Once the starter is gone (SIGKILLed) in group mode, the guard ends, with
// group E, every process that carries the session's id — read back off the
// live process: a pidfd of it opened first, then its `/proc/PID/stat`,
// owner and `environ` read, then the pidfd checked to show no exit (so that
// all of it was of the process the pidfd names, whose number cannot have
// been reused while it lived); only a whole element of the variable in its
// environment counts, never its command line; it started after the gate
// (clock ticks since boot, which no clock step moves); it is this user's —
// and signals it through that pidfd. What cannot be verified (an
// environment that may not be read, another user's process) is never
// signalled. A guard whose end leaves such a candidate of this user's in
// the session of group E (the launcher's) keeps the ledger record and names
// it there (`TestAnEscapeeThatCannotBeVerifiedKeepsTheRecordOnlyWhenTiedToTheSession`).
// On macOS and FreeBSD, and in the portable build, the guard
// verifies no mark (no handle that outlives the reading of a process). At
// the end on macOS (and on FreeBSD without the reaper) the mark is the
// second source of the escapee sweep by lineage ("macOS and FreeBSD"):
// read from `KERN_PROCARGS2` with argv skipped by its count (FreeBSD:
// `kern.proc.env`, the environment alone), and taken only with the
// process's identity read again after it.
//
// # Socket activation
//
// A service manager that starts session-starter in place of a
// socket-activated Engine (systemd, catatonit's users) sets `LISTEN_PID` to
// session-starter's PID, and an Engine that checks it (sd_listen_fds(3))
// would take its sockets as not its own. So, only when `LISTEN_PID` names
// session-starter itself, the gate sets it to its own PID, which the Engine
// keeps, and `LISTEN_PIDFDID`, where present, to the pidfs inode number of
// a pidfd of it (Linux 6.9); `LISTEN_FDS` and the descriptors from 3 on
// reach the Engine as they are. A `LISTEN_PID` that names another process
// is left as it is, and so is `LISTEN_PIDFDID` then. This is the second
// exception to the Engine's environment being the launcher's, present only
// in that case (`TestASocketActivatedEngineFindsItsSocketsItsOwn`,
// `TestALISTEN_PIDOfAnotherProcessIsLeftAsItIs`). Only the raw gate of the
// normal Linux build rewrites them; the re-executed gate (the portable
// build, kernels before 5.9 without `close_range`) leaves them as they are.
//
// # The ledger and --reclaim
//
// When the starter and the guard are SIGKILLed together — an OOM kill of
// the whole tree, a container stop, a crash of the launcher's host — what
// the session started is nobody's. For that case each session writes a
// record into a ledger before the Engine runs, and removes it at a clean
// end (it stays while the guard keeps guarding survivors). After a SIGKILL
// of the starter alone the guard, which got a descriptor of the ledger's
// directory at arming, removes the record once it has ended the session
// and found nothing left (by name, relative to that descriptor); when its
// end leaves something — a process SIGKILL cannot end, one waiting in the
// kernel on a hung FUSE server, say — it keeps the record for a reclaim,
// and writes into it what its end came to (`guard_end`: the outcome, the
// processes left, the time), which `--reclaim` prints and reports
// (`TestTheGuardKeepsTheRecordOfASessionItCouldNotEmpty`):
//
//   - *Where*: `/run/session-starter/` for root (on macOS and FreeBSD
//     `/var/run/session-starter/`); `$XDG_RUNTIME_DIR/session-starter/`;
//     else `/tmp/session-starter-UID`;
//     `SESSION_STARTER_LEDGER_DIR` names another. The directory must be this
//     user's, not a symlink, and not open to group or others (made `0700`
//     when missing); the records are `0600`, written whole (a temporary
//     file, then a rename). Either variable must give an absolute path: a
//     relative one names another directory from each working directory,
//     so it turns the ledger off
//     (`TestARelativeLedgerDirectoryTurnsTheLedgerOff`). The starter writes
//     and removes its record through a descriptor of the directory, as the
//     guard does. Where no directory passes, the ledger is off,
//     said at log level `info`, and the session runs.
//   - *What*: the boot id (on macOS `kern.bootsessionuuid`; on FreeBSD,
//     which draws none, the boot time: a clock step moves it, and a record
//     written before one then reads as of another boot, dropped with
//     nothing signalled), the session's id (its mark), and for the
//     starter, the guard and the Engine the PID with an identity token —
//     on Linux the start in clock ticks since boot (never turned into wall
//     time, which a clock step moves) and, on Linux 6.9+ 64-bit kernels,
//     the pidfs inode of a pidfd of it, which no other process shares; on
//     macOS its 64-bit unique process id; on FreeBSD its start, `ki_start`
//     —, the group, the session cgroup's directory and id; on Linux the
//     namespaces these numbers are relative to: the PID namespace (its
//     inode and the token of its PID 1, as an inode number is handed out
//     again), the cgroup namespace (the cgroup's path) and the user
//     namespace (the uid).
//
// `session-starter --reclaim` (with `--dry-run`, it only lists) reads this
// user's ledger and takes only the sessions whose starter and guard are
// both shown gone (no live process with the token's identity at their
// PIDs; a PID given to another process since counts as gone, and is
// reported, `token-mismatch`, never signalled; a number that names a
// thread, not a process, counts as gone:
// `TestARecordWhoseStarterPIDIsALiveThreadIsTakenAsGone`). On Linux it
// acts only on a record of its own PID, cgroup and user namespaces: one of another
// namespace, whose numbers mean other processes here, is reported
// `other-namespace` with the reason and never signalled, from the host
// (`TestAReclaimInTheHostSignalsNothingOfASessionInAChildPIDNamespace`)
// or from inside a namespace
// (`TestAReclaimInAChildPIDNamespaceSignalsNothingOfTheOuterSession`); so
// is a record of version 1, which names no namespace. A record of a PID
// namespace in which nothing is left is dropped, `namespace-gone`,
// nothing signalled: one of this namespace's inode number whose PID 1 is
// another process now (the number named an earlier namespace), and one
// whose PID 1 a reclaim here saw alive before (it notes that in the
// record: this namespace is its ancestor) and sees no more — the kernel
// kills every process of a PID namespace whose PID 1 died
// (`TestARecordOfAnEarlierNamespaceOfThisNumberIsDropped`). A record of a
// namespace never seen from here (a sibling container's) stays until a
// reclaim in its own namespace takes it, or the next boot; one of version
// 1 until the next boot. For each record it acts on it
// ends the Engine the record names if the live process at its PID has its
// token (a stranger with that PID is reported, `token-mismatch`, never
// signalled: `TestReclaimRefusesARecordsPIDGivenToAStranger`). Then, for a
// cgroup-mode session, the session cgroup (`cgroup.kill` on the directory
// whose id the record names: no PID guessed); for a group-mode one, every
// live process that carries the session's mark, verified as the guard does
// (above), in passes until one finds nothing new. It removes the record
// unless a survivor is left (below). On
// macOS and FreeBSD, with no cgroup and no pidfd, it ends the Engine by its
// token, then the Engine's descendants by lineage and the processes that
// carry the mark where it can be read, as the end does there (each read
// again right before its signal); on macOS, where another process's
// environment is usually unreadable, that is what the record names and what
// descends from it, and a process of the session that is neither is not
// found. A
// record of another boot is dropped, nothing signalled; a torn one, or one
// that is not this user's or is open to others, is reported and left; a
// process that cannot be verified is reported with its reason
// (`mark-unreadable`, `other-uid`, `token-mismatch`, `platform`), never
// signalled. It prints one line a session, and writes the whole report as
// one JSON record (`"event":"reclaimed"`) to `--status-fd`. It exits 125
// only when a process verified as a session's is left (`"survivor":true`:
// its signal failed, SIGKILL did not end it within 10 s, or its cgroup did
// not empty; the record then stays for the next reclaim:
// `TestTheGuardKeepsTheRecordOfASessionItCouldNotEmpty`),
// else 0: a PID given to a stranger, a refused file and a process that
// could not be verified are reported, not counted as left
// (`TestAReclaimWhoseRecordsPIDsWereMerelyReusedExitsZero`). A failed
// reclaim (the ledger off) exits 125 with no record. A launcher can run
// it before it starts a session. Windows keeps no ledger: a session's job object ends
// its processes when its last handle closes; `--reclaim` there says so
// (exit 125).
//
// # Limits and accounting
//
// `--max-tasks`, `--max-memory` (with `--max-swap`) and `--max-cpu` write
// `pids.max`, `memory.max` (and `memory.swap.max`, 0 unless given) and
// `cpu.max` (the CPUs times the 100 ms period) of the session cgroup, after
// the gate is ready — its Go runtime's threads count against `pids.max`, and
// a small one written before would refuse them — and before the go-ahead;
// each is read back (memory rounded down to whole pages, as the kernel keeps
// it), and a refusal, a mismatch or a missing controller exits 125 with
// nothing executed. A controller the host binds to cgroup v1 (a hybrid
// host, in /proc/self/cgroup) is reported as such: no delegation helps.
// Sizes are powers of 1024 (`512M`, `2G`, `1.5GiB`); CPUs
// are a number (`0.5`, `1.5`) or a percentage of one (`50%`), at least
// 0.01. Tested on Linux 6.1 in the VM: a loop of up to 2,000 forks under
// `--max-tasks 20` peaks at 20 tasks with the refused forks counted and the
// session ended empty (`TestMaxTasksHoldsAForkLoopAndTheSessionStillEnds`);
// 256 MiB under `--max-memory 64M` is OOM-killed inside the session, its
// SIGKILL mirrored and reported (`TestMaxMemoryOOMKillsInsideTheSessionAndSaysSo`);
// a busy loop under `--max-cpu 0.5` uses at most 0.6 of the wall time
// (`TestMaxCPUBoundsTheTreesCPUTime`).
//
// The layout. A cgroup other than the root may enable controllers for its
// children only while it holds no process: the memory controller is refused
// beside processes (EBUSY), and the threaded ones (pids, cpu), which the
// kernel accepts there, make the cgroup the root of a threaded subtree,
// below which the session cgroup comes out "domain invalid" and can hold no
// process (both measured on Linux 6.1). So where session-starter's own
// cgroup holds processes and it is the only one, it first moves itself into
// a leaf cgroup of its own there, `session-starter-PID-START-N.supervisor`,
// where the guard is born too, then enables the controllers, and at the end
// turns them off, moves back and removes the leaf (a leaf a SIGKILLed
// starter leaves is removed by the next start, as session cgroups are);
// where other processes share its cgroup it exits 125 naming them
// (`TestAStarterSharingItsCgroupRefusesAMemoryLimitNamingTheOther`,
// `TestAStarterAloneInItsCgroupMovesIntoALeafForAMemoryLimit`).
// A limit of the move: session-starter SIGKILLed leaves its leaf and the
// controllers on in its cgroup (the guard ends the session, not the
// layout), and a cgroup with controllers on below it takes no process of
// its own any more (EBUSY). A systemd scope or a container ends with it;
// elsewhere, remove the empty leaf and turn the controllers off (`rmdir
// …/session-starter-….supervisor; echo -memory > …/cgroup.subtree_control`)
// before the next start there
// (`TestASIGKILLedStarterLeavesItsLeafAndTheControllersOn`); a leaf of a dead
// starter in a cgroup that still takes processes is removed by the next
// start. Without swap accounting (`swapaccount=0`) there is no
// `memory.swap.max`: `--max-memory` then bounds memory alone, and only
// `--max-swap` given is an error.
// `--cgroup-parent DIR` makes the session cgroup in DIR instead, a cgroup
// that holds no process; session-starter stays where it is
// (`TestCgroupParentHoldsTheLimitWithoutMovingTheStarter`). Only one
// session of a process at a time moves it: a Go program running sessions
// with limits side by side gives them `Options.CgroupParent`.
//
// Accounting, always: the `ended` record's `usage` has the tree's CPU time,
// exited processes included — the session cgroup's `cpu.stat` in cgroup
// mode, kept by the cgroup core with or without the cpu controller; in group
// mode the sum of what the reaps returned (the Engine's, which includes what
// it reaped itself, and the adopted orphans'), not `RUSAGE_CHILDREN`, which
// also counts the guard (`TestUsageCountsTheCPUOfTheWholeTreeInBothModes`) —
// and, where the controllers are enabled for the session cgroup, the peak
// memory and tasks, the forks refused and the OOM kills (`oom_kills`, with a
// line on stderr). Group mode has no counter of a group's memory or tasks:
// those are absent, never guessed.
//
// Per call: a contained call (package starter/contain) in a cgroup-mode
// session has a cgroup of its own beside the Engine's leaf (the layout
// above), and `Cmd.Limits` bounds its tree there as a session's bound the
// session's — `pids.max`, `memory.max` (with `memory.swap.max`),
// `cpu.max`, written before the call's leader is born into it and read
// back, within the session's own limits. The controllers must be in the
// session cgroup's `cgroup.controllers`: `--call-limits tasks,memory,cpu`
// (any of them) makes them so as a session limit would — moving
// session-starter into its supervisor leaf where its cgroup holds it —
// without bounding the session; a session limit of the kind, or a parent
// that offers the controller, does as well. The Engine enables them for
// its calls in the session cgroup, which holds no process. Asked for
// without them, outside a session, in group mode, on macOS or FreeBSD,
// the call's Start fails naming why and nothing runs
// (`TestACallsLimitsInASessionWithoutTheControllerFailAndNothingRuns`,
// `TestACallsLimitsOutsideASessionFailAndNothingRuns`). The VM tests
// show each: a fork loop held at 20 tasks with the forks refused counted
// and the Engine still forking
// (`TestACallsTaskLimitHoldsItsForkLoopAndNotTheEngine`), an OOM kill
// inside the call only (`TestACallsMemoryLimitOOMKillsInsideTheCallOnly`),
// half a CPU (`TestACallsCPULimitBoundsItsCPUTime`). `Result.Usage` is the
// call's own: its cgroup's `cpu.stat` always, and its peak memory and
// tasks, OOM kills and forks refused where the session cgroup has the
// memory and pids controllers (the Engine enables those for its calls
// whenever the session cgroup has them; the cpu controller only for a
// CPU limit, since it would give the Engine and each call a CPU weight of
// their own); in group mode the leader's reap (`TestACallsCPUTimeIsTold`).
// On Windows a call's own job takes the limits (ActiveProcessLimit,
// JobMemoryLimit, a CPU rate cap) and tells its usage (`job`); under Wine
// they are refused naming Wine
// (`TestACallsLimitsUnderWineAreRefusedNamingWine`).
//
// Windows: the session's job holds the limits, set before the Engine
// joins it: `--max-tasks` as its ActiveProcessLimit (processes, not
// threads: a process created beyond it fails), `--max-memory` as its
// JobMemoryLimit (memory committed by its processes together; an
// allocation beyond it fails, there is no OOM kill), `--max-cpu` as a hard
// cap of its CPU rate (ten-thousandths of the whole machine); `--max-swap`
// and `--cgroup-parent` exit 125. The `usage` is the job's accounting:
// `cpu_ms` of every process it held, `memory_peak_bytes` of what they
// committed together, both with source `job`. Wine enforces none of the
// limits and accounts no job time (measured: ActiveProcessLimit 2 let three
// children start, a 64 MiB job let a child touch 200 MiB, CPU rate control
// is refused, the times read 0): under Wine every limit exits 125 naming
// it, and the record has no usage rather than a false one
// (`TestLimitsUnderWineAreRefusedNamingWine`, `TestUsageUnderWineIsAbsent`).
// Their effect is tested on the workflow's Windows job
// (`TestMaxTasksBoundsTheJobsProcesses`, `TestMaxMemoryBoundsTheJobsMemory`,
// `TestMaxCPUCapsTheJobsCPUAndTheUsageCountsIt`), not on this project's CI
// machine.
//
// # What each mode contains, side by side
//
// `scripts/compare-supervisors.sh` (installs tini, dumb-init and bubblewrap when missing) runs an
// Engine that leaves a background member of its group and a `setsid` escapee, ends the session three
// ways, and says which of the two are gone (member / escapee); the run, with its machine and date,
// is in `scripts/bench/NOTEBOOK.md`. systemd-run could not be run there (no systemd); its row is
// from its documentation.
//
//	| supervisor | Engine exits: member / escapee | SIGTERM to the supervisor | supervisor SIGKILLed |
//	|---|---|---|---|
//	| `session-starter --containment cgroup` | gone / gone | gone / gone | gone / gone (the guard uses `cgroup.kill`) |
//	| `session-starter --containment group` | gone / gone (subreaper sweep) | gone / gone | gone / live (the guard ends group E only) |
//	| `tini -s -g` | live / live | gone / live | live / live |
//	| `dumb-init` (setsid mode) | gone / live | gone / live | live / live |
//	| `bwrap --die-with-parent --unshare-pid` | gone / gone | gone / gone | gone / gone (a new PID namespace: the Engine sees other PIDs, a new /proc, no shared PID space with the launcher) |
//	| `systemd-run --scope` (documentation) | live / live (the scope stays while it has processes) | the signal reaches the command only | live / live (the scope outlives systemd-run) |
//
// Only session-starter also mirrors the Engine's exact status and tells the launcher (ack line) that
// containment exists before the Engine runs. Escapes that remain in every mode: a root Engine that
// moves itself to another cgroup (cgroup mode) or out of the tree by other privileged means, and work
// handed to a daemon outside the tree (`systemd-run`), which was never a descendant. A `docker run`
// or `podman run` Engine's container ends with the session under `--containers`.
//
// # Engines that are containers: --containers
//
// A stdio server run as `docker run -i --rm IMAGE` outlives its client:
// the engine keeps the container running when the `docker` client dies.
// podman's monitor, conmon, killed by a sweep, leaves the container
// recorded as running, `--rm` never runs, and its name stays taken.
// `--containers` makes the container the session's:
//
//	session-starter --stdio --containers --grace 5s -- docker run -i --rm IMAGE
//
// It adds one label to the command line, right after `run`:
// `--label session-starter.session=ID`, the session's id. This is the one
// exception to "the command line, byte for byte"; the `started` record's
// `argv` shows the line as run. Global options before `run` are read
// (`--context`, `-H`, `--remote`, `--connection`, `--root`…); an unknown
// one must be written `--opt=VALUE`. Refused as usage errors (2): `-d`,
// another subcommand, a label of that key given by hand, and any other
// program. A shell or a script in front (`bash -lc "docker run …"`) is not
// read: put session-starter in front of the engine's CLI itself.
//
// Every end of the session first has the same engine stop the containers
// with that label, with `--grace` (in whole seconds, rounded up), then
// remove those made with `--rm`. The engine is reached as the Engine
// reached it: the same binary, global options and endpoint environment
// (`DOCKER_HOST`, `DOCKER_CONTEXT`, `DOCKER_CONFIG`, `CONTAINER_HOST`,
// `CONTAINERS_CONF`, `XDG_RUNTIME_DIR`, `HOME`, `PATH`…). Only then does
// the end signal the client and the monitor. The engine gets up to grace +
// kill budget for this, before the end's own deadline starts. A container
// made without `--rm` is stopped, not removed.
//
// The ledger record keeps the engine's CLI and environment. After a
// SIGKILL of session-starter, the guard ends the processes as always,
// then has the engine stop the containers at once and remove those made
// with `--rm`. `--reclaim` does the same for a session whose starter and
// guard were both SIGKILLed; `--dry-run` lists them, by their full ids. Without a ledger record the start fails
// (125): the guard could not know the engine. Every action reads each
// container's label back by its full id first: a container of another
// session, or of none, is never touched. An engine that fails to stop
// them makes the end's outcome survivors (exit 125), and the record stays
// for a reclaim.
//
// Tested on podman 4 with runc and with the docker client against
// podman's Docker API (`scripts/containers`, `make test-containers`):
// the client's close, SIGTERM and SIGKILL, a SIGKILL of session-starter,
// and session-starter and its guard SIGKILLed before `--reclaim` each
// leave no container of the session and no process
// (TestAContainerEngineEndsWithItsSessionHoweverTheSessionEnds,
// TestReclaimEndsTheContainersOfASessionWhoseStarterAndGuardWereKilled).
// Without the flag the container outlives its session
// (TestWithoutContainersTheContainerOutlivesItsClient). Docker's own
// daemon was not run here.
//
// # The launcher's pipes: --watch-stdin
//
// `--watch-parent` watches the process that started session-starter; in the
// most common MCP client config that is a wrapper shell (`bash -lc "…
// session-starter … -- node server.js"`, `npx`, `sh -c`, `uv run`, an asdf
// shim), which outlives the client. What always ends with the client is
// its end of the server's stdin (MCP's stdio transport is that pipe, or a
// socket from Node). With `--watch-stdin` session-starter keeps a
// duplicate of its descriptor 0 — the launcher's own open file: a reopening
// would miss a hang-up that came before it — never reads it, never changes
// its flags, and polls it for the hang-up only (`POLLHUP` of a pipe, asked
// with no events; `POLLRDHUP` of a stream socket; never `POLLIN`, so data
// the Engine has not read wakes nothing). On the hang-up the Engine, which
// sees the same end of input, gets `--stdin-grace` (2 s, as an MCP client
// waits before its SIGTERM) to exit by itself — its status is then mirrored,
// and nothing is signalled, reason `engine-exit` —, then the session ends as
// on any stop (`--grace`, SIGKILL rounds), reason `stdin-closed`. A hang-up
// before the go-ahead is one like any other (`printf x | session-starter
// --watch-stdin -- cat` prints `x`): the Engine runs, reads what was
// written and gets `--stdin-grace`. Refused as usage errors (2),
// nothing started: stdin a terminal, `/dev/null` or another character
// device, a file, a listening or datagram socket, a pipe that a passed
// descriptor also writes to (its hang-up could never come); a socket on macOS
// and FreeBSD, whose poll does not tell a peer's shutdown. While the
// duplicate is held, a launcher writing to a dead Engine gets EPIPE only
// once session-starter lets go of it, as soon as the session's holders are
// empty. Through `sudo` (Debian's `Defaults use_pty`), run from a pipe, the
// command gets a pipe for stdin that sudo relays, and the client's close
// still arrives as a hang-up (TestThroughSudoTheHangUpStillArrives).
//
// # Signals
//
// What each signal to session-starter does, in one table:
//
//	| signal | what it does |
//	|---|---|
//	| SIGTERM, SIGINT, SIGHUP | end the session (a stop); the session's second one during `--grace` goes straight to SIGKILL. An end begun otherwise (stdin, the parent, a timeout) keeps its grace through the first (`TestAStopSignalDuringAnEndBegunByStdinOnlyJoinsIt`). SIGHUP and SIGINT that the launcher left ignored (`nohup`, `cmd &` in a script) stay ignored, for session-starter and for the Engine (`TestNohupStyleLaunchKeepsHUPAndINTIgnored`) |
//	| SIGUSR1, SIGUSR2, SIGWINCH, SIGCONT, SIGALRM | forwarded to the Engine's group, as tini and dumb-init do |
//	| SIGCHLD | watched: adopted orphans are reaped as they exit, the Engine's job-control stops are followed at a terminal, a stopped guard is continued |
//	| SIGPIPE | no death: a write to a closed pipe or socket (the ack, a report) fails with EPIPE and costs that write only |
//	| SIGKILL | ends session-starter; the guard ends the session (group E, the cgroup, the processes that carry the session's mark) |
//	| SIGSTOP | stops session-starter only; the session runs, and its end waits for SIGCONT (the guard is not stopped) |
//	| SIGTSTP, SIGTTIN, SIGTTOU | passed on to the Engine's group, then session-starter stops itself (SIGSTOP), so that the job shows stopped with its Engine (Ctrl-Z on `session-starter -- cmd \| cat`); continued, session-starter continues the group (SIGCONT), as dumb-init does; the guard is not stopped (`TestAJobStopOfTheStarterStopsTheEnginesGroupAndContinuesIt`). Left ignored by the launcher, they stay ignored, for session-starter and for the Engine, read from the kernel before any catch (`TestJobStopsTheLauncherIgnoredStayIgnoredInTheEngine`; on macOS and FreeBSD the Go runtime cannot tell, and they are caught) |
//	| SIGQUIT, SIGILL, SIGTRAP, SIGABRT, SIGBUS, SIGFPE, SIGSEGV, SIGSYS, SIGSTKFLT (sent with kill) | end the session as a stop does, then session-starter dies of that signal (no traceback, no core; 128+S as PID 1), as it would have without a session; the Engine's status is in the `ended` record (`TestFatalSignalsEndTheSessionThenTheStarterDiesOfThem`) |
//	| SIGXCPU, SIGXFSZ, SIGVTALRM, SIGIO, SIGPWR, SIGPROF, SIGURG, the real-time signals 35 and up | nothing: the Go runtime's handler drops them |
//
// Signals the launcher blocked. The signal mask the Engine starts with is
// the launcher's (`TestEngineSeesWhatADirectLaunchGives` blocks SIGUSR2 and
// finds it blocked in the Engine), except for the signals the Go runtime
// unblocks as it starts, because it must see them: SIGHUP, SIGINT,
// SIGQUIT, SIGTERM, SIGABRT, SIGCHLD, SIGPROF, SIGSYS, SIGSTKFLT, the
// synchronous ones (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP) and the
// C library's 32 to 34. Those reach the Engine unblocked, as they reach
// any child a Go program starts with os/exec.
//
// Every stop signal is caught from the first thing `main` does, before
// the command line is read and before anything is started, so that none
// meets the Go runtime's own handling (a traceback and exit status 2 for
// SIGQUIT; exit status 2 for any as PID 1), and exit status 2 means a
// usage error only (`TestAStopSignalAtTheFirstChildIsNeverExit2`,
// `TestAsPID1AStopSignalAtTheFirstChildExits128PlusS`). What no Go
// program can close is the time before `main`, while the Go runtime
// starts and the packages initialize (a millisecond, more on a loaded
// machine): a signal then meets the runtime's handler — SIGQUIT and the
// others of the fatal row give a traceback and exit status 2, SIGTERM,
// SIGINT and SIGHUP the death by that signal (exit status 2 as PID 1) —
// and nothing was started. Before the runtime's handlers exist the
// signal's default action applies, and the launcher sees death by it.
//
// A stop signal before the go-ahead means nothing was executed, and
// session-starter dies of that signal; after it, the group is ended and the
// Engine's status is mirrored as usual: death by SIGKILL without `--grace`, or
// whatever the Engine did with the stop signal within the grace. A stop signal
// that arrives while the go-ahead is being given can be seen just after it,
// because the Go runtime relays caught signals through a goroutine: the Engine
// then starts and is ended at once, as on any stop, and its status (normally
// SIGKILL) is mirrored.
//
// Ignored signals. Of the signals the launcher left ignored, SIGHUP and
// SIGINT stay ignored for the Engine, and on Linux SIGTSTP, SIGTTIN and
// SIGTTOU too. Any other (SIGPIPE, SIGTERM, SIGUSR1, …) reaches the Engine at
// its default disposition: the Go runtime replaces the ignore with its own
// handler before `main` runs, and an exec resets handled signals to the
// default. The exceptions are the real-time signals 32 and 34,
// which the Go runtime never handles (they belong to the C library): whatever
// disposition the launcher gave them reaches the Engine unchanged, as in a
// direct launch. (GNU make 4.3, for one, starts its recipes with 32 and 33
// ignored.) `TestIgnoredSignalsOtherThanHUPAndINTReachTheEngineAtDefault` pins
// this limit. The Engine's own SIGPIPE is left at the default, as a direct
// launch from a Go or Python launcher gives it.
//
// # At a terminal
//
// When stdin is the controlling terminal, session-starter's group is its
// foreground group and stdout is not a pipe or socket (`session-starter -- npm
// run dev` or `session-starter -- cmd > out` typed at a shell, not
// `session-starter -- git log | less` and not a job started with `&`), the
// Engine's group is made the terminal's foreground group before the go-ahead:
// an interactive Engine reads the terminal, and Ctrl-C and Ctrl-\ reach the
// Engine's group directly (session-starter then mirrors the Engine's death by
// SIGINT, so the shell sees a job killed by Ctrl-C). Ctrl-Z stops the Engine;
// session-starter takes the terminal back and stops itself, so the shell shows
// the job as stopped; `fg` continues session-starter, which gives the terminal
// back to the Engine's group and continues it. Where the Engine's group does
// not get the terminal (a job started with `&`), an Engine stopped by SIGTTIN or
// SIGTTOU (it read the terminal, or changed its settings) is followed the same
// way: the shell shows the job stopped, and `fg` gives the Engine the terminal.
// Only the Engine's own stops are seen, as a shell sees only its children's;
// where session-starter's group keeps the terminal (`session-starter -- cmd
// | cat`), Ctrl-Z stops session-starter, which stops the Engine's group
// first (see Signals). At the end session-starter takes
// the terminal back before it exits, and if session-starter is SIGKILLed the
// guard gives the terminal back to session-starter's group after ending the
// Engine's. Tested in a real pseudo-terminal under tmux
// (`cmd/session-starter/tty_linux_test.go`).
//
// # In CI scripts and as PID 1 of a container
//
// A CI step that starts a database or a browser in the background leaves it
// running when the step ends, fails, or is cancelled. Wrap the step:
//
//	# .github/workflows/…: one step
//	run: session-starter --watch-parent --grace 2s --timeout 20m -- make integration-test
//
// `make integration-test` may start `postgres -D … &`, `chromium --headless &`
// or a `docker-compose`-less test server in the background, even with `setsid`
// or `nohup`: when the tests finish or time out (exit 124), each gets SIGTERM,
// then SIGKILL after 2 s, and the step's exit status is that of `make`. A
// cancelled run is signalled otherwise: GitHub Actions sends SIGINT, then
// SIGTERM 7.5 s later, to the step's `bash` only, never to session-starter;
// `bash` waits out the SIGINT and dies of the SIGTERM, and `--watch-parent`
// ends the session then (without it the step runs on until `--timeout`).
// `--grace 2s` fits in the 2.5 s the runner waits before it kills the tree.
// Work handed to a daemon outside the step's process tree (`systemd-run`)
// was never a descendant and is not ended. A `docker run` or `podman run`
// step ends with it under `--containers`. The README's
// recipes (this step, MCP client configs, a wrapper script, a Dockerfile) are
// run as printed by `cmd/session-starter/recipes_linux_test.go`.
//
// Run as the init of a PID namespace (`ENTRYPOINT ["/usr/local/bin/session-starter", "--grace", "8s", "--"]`),
// session-starter reaps every orphan of the namespace as it exits, forwards
// signals as above, and exits 128+S when the Engine dies of signal S (the init
// of a PID namespace cannot die of its own signal). `--watch-parent` without
// `--parent-pid` is a usage error there: an init has no parent to watch.
//
// This holds on a real engine: podman 4 with runc (`make test-containers`,
// `scripts/containers`). Orphans of `podman exec`'d commands are reaped:
// 50 execs orphan 2,000 processes, and no zombie is left. `podman stop -t N`
// and `podman pod stop -t N` send SIGTERM, and every process of the session
// gets the grace, one that left the Engine's group too. What ignores the
// signal is SIGKILLed at the grace's end, before the engine's SIGKILL: keep
// `--grace` under N. The container's status is the Engine's. `--explain` in
// the container says `pid1: yes`, the mode, and why. A container's cgroup v2
// is absent or read-only unless it is privileged: the mode is then group,
// with the subreaper and the PID namespace.
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
// `--grace 25s` ends inside the pod's 30 s. The tests run this manifest
// with `podman kube play`, with their own image, name and labels.
// session-starter is PID 1 there, reaps exec orphans, and the pod's stop
// ends the app within the grace with its status. podman ignores
// terminationGracePeriodSeconds, and `podman kube down` SIGKILLs: kubelet's
// timing is not reproduced.
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
// As PID 1, `--stdio` watches stdin only. When the client closes it, the
// server has the stdin grace to exit; then the session ends, and `--rm`
// removes the container. The tests build this Dockerfile with podman, with
// a shell script as the server. Through `podman run -i --rm`, and `docker
// run -i --rm` against podman's Docker API, it answers `initialize`; when
// stdin closes, the container is gone.
//
// # The requested form: a Go Engine that contains itself
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
// The process then behaves as `session-starter --ack --watch-parent -- <its own
// command line>`: it writes the ack line, runs the same binary with the same
// arguments and `argv[0]` as the Engine behind the gate and the guard, with
// `SESSION_STARTER_CONTAIN` removed from the Engine's environment, and exits
// with the Engine's status. A launcher reads the ack line exactly as above.
// Without the variable the call returns at once (about 20 ns, no allocation:
// `BenchmarkIfRequestedWithoutTheVariable`). Any other value than `1` is
// removed from the environment and ignored.
//
// The gate and the guard are helper processes started from a binary. If a
// `session-starter` is found in `PATH` that speaks the same protocol of the
// hidden modes as the packages the Engine was built with, it plays them, and
// the Engine's `init` functions run only in the starter and in the Engine. It
// is asked first (it runs once, in a hidden mode that only answers, through
// its descriptor); one of another version, or one that does not answer (a
// script, a binary older than the question), is passed over as if there were
// none. Without one, the Engine's own binary (`/proc/self/exe`) plays them:
// its `init` functions then also run in the guard (after a starter SIGKILL on
// Linux 6.9+, for the end; for the whole session before 6.9), and in the gate
// where it is not a fork of the starter
// (TestRequestedFormWithoutAnInstalledStarterPlaysTheGuardItself counts
// them). So keep `init` free of side effects, and call `contain.IfRequested`
// before anything else in `main`: it is also what runs those hidden modes.
//
// Under a debugger. Delve and IDEs build with `-gcflags='all=-N -l'` (no
// optimization, no inlining); a program that imports `starter/contain` (or
// `starter`) builds and runs so, and `make lint` builds both ways. The code
// that runs without a Go runtime (the forked gate, the guard's porch) is
// compiled only for the Go releases and architectures it is proven on (Go
// 1.26 and 1.27, amd64 and arm64); on any other, and with the build tag
// `session_starter_noraw`, the gate and the guard are the binary started
// again in a hidden mode — slower to start, the same rules.
//
// # Contained calls: an Engine's per-call commands
//
// A Go Engine runs each tool call's command through `contain.Command` or
// `contain.Wrap` (package `starter/contain`; its doc is the contract)
// instead of `os/exec`: each call gets its own process group, and in a
// cgroup-mode session its own cgroup below the session's, born there; the
// leader's exit is seen without reaping it, and the tree is ended (Killed:
// a cancelled context, `Kill`) or released (the leader exited on its own:
// what it left stays, listed, inside the session) before the leader is
// reaped. Per call, what each way leaves (member of the call's group /
// `setsid` grandchild):
//
//	| per call | cancel | leader exits, a grandchild holds stdout | the Engine SIGKILLed, under session-starter | session-starter SIGKILLed |
//	|---|---|---|---|---|
//	| `exec.CommandContext` (Go 1.26) | live / live (Cancel kills the leader only) | `Wait` waits for the grandchild (without `WaitDelay`) | gone / gone (the call is in the Engine's group) | gone / gone (group E; the escapee by the session mark) |
//	| `contain.Command`, cgroup mode | gone / gone | `Wait` returns after `Drain`, naming the holder | gone / gone | gone / gone |
//	| `contain.Command`, group mode | gone / gone (the escapee found while its parent lives, an orphan by the call's own mark, and listed) | `Wait` returns after `Drain`, naming the holder | gone / gone | gone / gone (by the session mark) |
//
// An Engine in any language gets the same per call from the command line:
// each call is a session of its own, nested in the Engine's —
// `session-starter --timeout 30s --status-fd 3 -- sh -c '…'`, or the Node
// and Python packages' `call()`. When the call's leader exits, its session
// ends what it left; with `--release-on-exit` that stays instead, listed
// in the `ended` record (`outcome: released`, `released: [PIDs]`), for the
// enclosing session (the Engine's) to end — the flag is refused without
// one, and the guard, told so at arming, obeys the finish once the Engine
// has exited (a finish before that is refused, as always). The record's
// `executed` is the retry signal: only `false` in a complete record means
// nothing ran; no record (a SIGKILLed starter) means it cannot be known.
// `session-starter --end-released ID` ends what the call released before
// the enclosing session ends: ID is the `started` record's `session`.
// It finds this user's processes by the call's mark, on Linux.
// (TestReleaseOnExitLeavesWhatTheEngineLeftToTheEnclosingSession,
// TestReleaseOnExitEndsEverythingOnAStopAndAfterASIGKILL,
// TestExecutedIsTheRetrySignalOfACompleteRecord,
// TestEndReleasedEndsWhatAReleasedCallLeftAndWhatItStartedSince.) What a call released
// may hold its output pipes: the packages' `call()` reads them for at
// most a drain bound after session-starter's exit (500 ms, option `drain`),
// then closes them and returns with the output read so far
// (`outputHeld`, `output_held`). It keeps at most 100 MiB of stdout and
// of stderr each (`maxBuffer`, `max_buffer`); past that it ends the call
// and says so (`MaxBufferError`).
//
// The contain rows are pinned by the tests of `starter/contain`
// (TestCancelEndsTheLeadersWholeGroupBeforeItIsReaped,
// TestKillInGroupModeEndsAndReportsASetsidGrandchild,
// TestKillInCgroupModeEndsASetsidGrandchild,
// TestWaitReturnsWithinTheDrainBoundWhenAnEscapeeHoldsStdout,
// TestAnEngineKilledMidCallLeavesNothingOfTheCall,
// TestAStarterKilledMidCallLeavesNothingOfTheCall,
// TestInGroupModeEndOnExitEndsTheCallsOrphan,
// TestInGroupModeAReleasedCallsOrphanIsLeftAndEndReleasedEndsIt,
// TestAHelpedCallsEndOnExitEndsItsOrphan,
// TestAHelpedCallsOrphanIsLeftAndEndReleasedEndsIt). What a contained call
// costs is row f of `make bench`.
//
// # Windows
//
// On Windows the session is held by a job object with
// `JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE`, which is the gate and the guard at once:
//
//   - The Engine is created with `CREATE_SUSPENDED` inside the job
//     (`PROC_THREAD_ATTRIBUTE_JOB_LIST`; where the attribute is refused, before
//     Windows 10, it is assigned with `AssignProcessToJobObject` while still
//     suspended, and terminated if it cannot be). Then the ack line is written
//     (`{"session_containment":1,"pid":N,"mode":"job"}`), then the Engine is
//     resumed: no Engine output precedes the ack, and everything the Engine
//     starts is in the job. No breakaway is allowed.
//   - Only session-starter holds a handle to the job (it is never inheritable).
//     However session-starter ends — TerminateProcess, a crash, Task Manager —
//     the system closes that last handle and ends every process of the job. A
//     launcher's own job (an IDE's, a CI runner's) keeps working: the session's
//     job nests in it.
//   - The session ends when the Engine exits (a wait on its handle), when the
//     launcher is gone (`--watch-parent`/`--parent-pid`: a SYNCHRONIZE handle
//     opened at start, checked against PID reuse by the process's creation
//     time), when the control handle reaches end of input, at `--timeout`
//     (exit 124), and on Ctrl-C, Ctrl-Break or closing the console. The rest of
//     the job is then terminated (`TerminateJobObject`, exit code 1: the Engine's
//     status when the session ended for another reason than its exit), and the
//     job's completion port tells when no process is left
//     (`JOB_OBJECT_MSG_ACTIVE_PROCESS_ZERO`, confirmed by asking the job).
//   - `--grace D` sends `CTRL_BREAK_EVENT` to the Engine's console process group
//     first and waits up to D for the job to empty. The Engine is created with
//     `CREATE_NEW_PROCESS_GROUP` for this, which also disables Ctrl-C in it
//     until it enables it itself (Ctrl-Break still reaches it). A launcher
//     without a console (most IDEs) gets an Engine with `CREATE_NO_WINDOW`: no
//     console event can reach it, and `--grace` then terminates the job at once
//     (a `--log-level info` line says so). `--stop-signal` has no meaning there.
//   - PROGRAM is resolved as `cmd.exe` does: the current directory first
//     (unless `NoDefaultCurrentDirectoryInExePath` is set), then `PATH`, each
//     with the `PATHEXT` extensions. A `.cmd` or `.bat` file (npm's `npx.cmd`)
//     runs through the system's `cmd.exe /e:ON /v:OFF /d /c` with the quoting of
//     Rust's standard library after CVE-2024-24576 ("BatBadBut"): every argument
//     with a character other than letters, digits and `#$*+-./:?@\_` is quoted,
//     `"` is doubled, `%` cannot expand a variable; an argument holding a
//     newline or carriage return, or a script path holding `"` or `%`, is
//     refused with exit status 126 and nothing runs. Other programs get
//     the launcher's command line from PROGRAM on, byte for byte.
//   - `--control-fd` and `--status-fd` take handle values that the launcher made
//     inheritable and passed: Go `SysProcAttr.AdditionalInheritedHandles`;
//     Python `subprocess.STARTUPINFO(lpAttributeList={"handle_list": [h]})` with
//     `close_fds=True` (the handle from `msvcrt.get_osfhandle` on a pipe made
//     inheritable with `os.set_handle_inheritable`). Node's `child_process`
//     cannot pass a plain handle: use `--watch-parent --parent-pid`. The Engine
//     inherits every other inheritable handle of the launcher's, as it would
//     without session-starter, but not these two.
//   - Exit statuses are those of Linux: the Engine's exit code (any 32-bit
//     value), 2, 124, 125, 126, 127. A stop before the Engine ran exits 125
//     (parent gone, control closed) or 128+2 (Ctrl-C); Windows has no death by
//     signal to mirror.
//
// How it is tested. `make test-windows` runs the Windows build's tests under
// Wine on Linux (`scripts/wine-setup.sh` installs Debian's `wine64` and
// `mingw-w64` where missing, makes a Wine prefix of its own under
// `~/.cache/session-starter-wine`, and installs a stand-in `bcryptprimitives.dll`,
// since Go's runtime needs `ProcessPrng`, which Wine 8 lacks). Under Wine:
// the Engine runs no instruction before the ack; the Engine's exit ends its
// child and grandchild; terminating session-starter
// ends the tree through the kill-on-close job; a nested job ends with its outer
// job; exit codes (up to `0xC000013A`) are mirrored; 127 comes without an ack;
// the ack precedes the Engine's output; control handle EOF, the launcher's exit
// and `--timeout` end the session; a process created after session-starter is
// not taken for its parent; the status records; 126 for a file Windows cannot
// execute; the Engine's command line arrives byte for byte; `launch.Start`
// passes its pipes as handles; batch-file arguments
// with `&|^<>()!`, spaces, quotes and a trailing backslash arrive unchanged,
// and a newline is refused. Wine cannot show timing, races under load, or
// console control events (`GenerateConsoleCtrlEvent` fails there), and its
// `cmd.exe` does not implement the `%cd:~,%` substring the `%` quoting relies
// on: those tests skip under Wine and run on real Windows in the GitHub
// workflow (`.github/workflows/ci.yml`, `windows-latest`).
//
// # macOS and FreeBSD
//
// The same flags, ack line, exit statuses, status records, gate and guard. No
// pidfds there, so every signal goes by number, and only where the number
// cannot name another process:
//
//   - The starter signals `-E` (and the Engine alone) only while the Engine
//     is its unreaped child: the Engine, running or a zombie, keeps its PID and
//     the group number E allocated. It never reaps the Engine before the end.
//   - The guard signals `-E` (and the Engine by its number) only while its
//     pin — a child of its own that joined E while the gate led it — is a member
//     of E: no process is given a number that is a live group's, and the pin
//     leaves E only when the guard reaps it, after its last signal.
//   - Watchers on kqueue: `EVFILT_PROC`/`NOTE_EXIT` for the gate (the
//     Engine), the guard, the pin and the launcher, each in a kqueue of its own
//     that the watch loop polls with the other descriptors (the status is taken
//     from the event: `NOTE_EXITSTATUS` on macOS). The launcher's filter is
//     registered, then `getppid()` is checked again, so a launcher gone before
//     the registration is seen. The control descriptor is polled for input;
//     signals come through os/signal.
//   - The guard watches the starter by a pipe only the starter holds: end of
//     input is the starter gone; it needs no PID at all.
//   - Group membership from `sysctl kern.proc.pgrp`, zombies left out; the
//     inherited descriptors by asking `fcntl(F_GETFD)` of each number below
//     `RLIMIT_NOFILE` (at most 65,536), as there is no /proc/self/fd. A
//     `kern.proc` listing that outgrew the kernel's estimate of its size before
//     it was read (ENOMEM) is read again: on FreeBSD, whose estimate has room
//     for five new processes, in a buffer grown by a tenth each time, as libkvm
//     does; on macOS after a new estimate. A listing of the starter's children
//     that fails anyway fails the start (exit 125): a child it had before the
//     session must never be taken for an escapee.
//   - The control pipe is read through the launcher's own descriptor: on
//     macOS `/dev/fd/N` duplicates a descriptor instead of reopening the pipe,
//     so there is no private open file to make non-blocking. The starter never
//     changes the pipe's flags: it reads only the bytes `FIONREAD` counts, and a
//     pipe that poll shows readable with nothing in it is at end of input (a
//     launcher that reads from the control pipe itself could make that wrong).
//   - FreeBSD: the reaper. The starter calls `procctl(PROC_REAP_ACQUIRE)`;
//     the ack's and the status records' `mode` is `reaper`. Processes that left
//     group E are re-parented to it when orphaned and swept as on Linux, and the
//     Engine's whole subtree — every process descended from the gate, whatever
//     its group — is one more holder of the end: listed by `PROC_REAP_GETPIDS`
//     (its subtree, zombies left out; a list that comes back filling all the
//     room it was given may have been cut short, and is asked for again with
//     twice the room) and signalled by `PROC_REAP_KILL` with
//     `REAPER_KILL_SUBTREE` on the Engine's subtree (the reaper's whole tree
//     also holds the guard and children that are not the session's), only while
//     the Engine is unreaped.
//   - macOS has no subreaper: `mode` is `group`, and the processes that left
//     group E (`setsid`, a double fork) are found at the end by lineage. The
//     Engine's identity is its 64-bit unique process id (`proc_pidinfo`
//     `PROC_PIDUNIQIDENTIFIERINFO`, which no other process of the boot ever
//     has; exec keeps it), read while the gate is the starter's unreaped
//     child. Each look reads `kern.proc.all` and every process's unique id
//     and parent unique id (`p_puniqueid`, set at fork and again at exec to
//     the parent then, kept when launchd adopts the orphan until it execs:
//     PPID is never looked at); a process whose parent unique id is the
//     Engine's or one found before is the session's, and so is one of this
//     user that started after the Engine (a later unique id) and carries the
//     session mark. Passes over fresh listings repeat until
//     one finds nothing new (at most 16 a look). Before each signal a
//     `NOTE_EXIT` filter is registered on the PID, the unique id (with the
//     PID version, `p_idversion`, drawn anew at every fork and exec) and the
//     record read again, and the signal sent only if they are the ones found,
//     of this user, live: on macOS 14.4 and later through libSystem's
//     `proc_signal_with_audittoken` (looked up with `dlsym`), with an audit
//     token of the PID and that version, which the kernel signals only if
//     one process has both — no reused number can be signalled; before 14.4
//     by number while the kqueue still shows no exit, which leaves the moment
//     between that look and `kill`, in which the process would have to exit,
//     be reaped and its PID be handed out again. SIGKILL
//     stops them first (SIGSTOP), looks again for what they forked, kills
//     all, then sends SIGCONT. Another user's process and one whose unique id
//     cannot be read again are listed as survivors, never signalled. A
//     process whose parent exited before the end's first look, and whose
//     mark cannot be read, is not found. FreeBSD without the reaper (a
//     library caller's `Options.Subreaper` false) sweeps the same way by
//     (PID, `ki_start`), a parent known only while the listing shows it.
//   - The gate and the guard are started from the binary's path
//     (`os.Executable`), there being no `/proc/self/exe`: a binary replaced at
//     that path between the start and the gate's exec is the one executed.
//   - `--containment cgroup` exits 125 (cgroups are Linux's); `auto` and
//     `group` give the modes above.
//   - The 64-bit ports only. The releases are FreeBSD's amd64 and arm64 (and
//     macOS's); riscv64 builds the same code. The 32-bit FreeBSD ports (386,
//     arm) build but hold no session: the kinfo_proc decoded here is the
//     64-bit ports' layout (1088 bytes; i386's is 768, arm's 816), and
//     `procctl`'s 64-bit id_t takes two argument words there (on arm after a
//     padding word), which this build does not make; every session exits 125
//     before anything is started, naming the reason.
//   - An Engine that dies of signal S makes session-starter die of S, as on
//     Linux, for every signal whose default action ends a process (EMT among
//     them): the Go runtime's own handler is replaced by the default with a raw
//     `sigaction`, S is unblocked on one thread and sent to it (`thr_kill` on
//     FreeBSD; on macOS libSystem's `pthread_sigmask` and `pthread_kill`), with
//     core dumps off, so there is no Go dump and no exit 2.
//
// What was run where. On this project's Linux machine (6.18) the
// portable build (`-tags portable`, `make test-portable`) takes macOS's code
// paths: signals by number only under the rules above, no subreaper, no
// cgroup, no pidfd to signal or to name a process; its event layer polls a
// pidfd only where macOS polls a kqueue's `NOTE_EXIT`, its group listing reads
// /proc where macOS asks `kern.proc.pgrp` (zombies left out), its control pipe
// is read as above, and its guard gets no handle of the gate or the starter.
// Every run of it goes through a seccomp filter that refuses
// `pidfd_send_signal` and `PR_SET_CHILD_SUBREAPER`, and the whole session
// suite runs against it (the gate's, guard's and starter's in-process tests
// run with the tag as well); the cases that need the subreaper or a cgroup skip,
// saying why, as does the one that opens the guard's pipe through
// `/proc/PID/fd` (no other process can do that on macOS). The macOS and
// FreeBSD code itself — the kqueue layer, the `kern.proc` decoding (FreeBSD's
// `kinfo_proc` read at fixed offsets), `wait4`, the descriptor probe, the
// reaper — was only built and vetted here (`make cross`: `go build`, `go vet`
// and `go test -c` of every package for darwin and freebsd; the FreeBSD
// `kinfo_proc` decoder and the growing and refilled listings are shared
// code, tested here against records built from `<sys/user.h>` and stand-ins
// of the kernel; so are macOS's `kinfo_proc` decoder, against records built
// from XNU's `<sys/sysctl.h>` and `<sys/proc.h>`, the `KERN_PROCARGS2`
// parser, against blobs with hostile argv, the decoding of
// `proc_uniqidentifierinfo`, and the lineage sweep's passes and
// verification, over fabricated process tables; the `proc_pidinfo`
// trampoline was only built). The GitHub workflow runs `go test ./...` on macOS and in
// FreeBSD VMs (14 and 15 on amd64, 15 on arm64), including
// `cmd/session-starter/bsd_test.go`, which holds real sessions there (status
// mirrored, every deadly signal mirrored, a grandchild ended with the Engine,
// the guard ending the group after a SIGKILL of the starter,
// control-descriptor EOF, a stop signal, the ack's mode, an escapee ended by
// FreeBSD's reaper and by the lineage sweep on macOS, beside a stranger it
// leaves alone, a double-forked daemon ended (on macOS by its mark); each
// watched process
// is first checked to decode as the live sleep it is), `internal/sys`'s `Die`
// tests, and `internal/proc`'s reads of known processes (the test itself, a
// stopped child, a zombie); those jobs have not run from here.
//
// What the Linux build cannot show: kqueue's registration race (a process
// reaped before its `NOTE_EXIT` filter is registered: ESRCH; one that is a
// zombie then: ESRCH on macOS, while on FreeBSD the filter is registered and
// fires at once with the exit status) and its EOF flag; `kill(-E)` to a group
// that holds only zombies (EPERM on macOS, which skips zombies, not ESRCH;
// the end takes EPERM as the group still there, and finds no live member);
// the real `kern.proc` listing and its zombie state; `/dev/fd` semantics on
// macOS (the control pipe path above is the same code, but Linux's `/dev/fd`
// reopens); listing descriptors without /proc; `NOTE_EXITSTATUS`;
// `PROC_REAP_*`.
//
// # Known gaps
//
// The ignored signals and a stop at the go-ahead are under Signals.
//
//   - A same-user Engine that means to escape can. session-starter holds
//     against crashes and SIGKILL of any of its processes, careless programs
//     (double forks, `setsid`, ignored SIGTERM) and PID reuse, not against an
//     Engine that sets out to escape: it runs as the launcher's user, so it may
//     SIGSTOP session-starter, SIGKILL the guard and then session-starter, and
//     nothing ends its tree (`TestAnEngineThatKillsTheGuardAndTheStarterEscapes`
//     pins this). That needs a boundary the Engine cannot cross: another user, a
//     PID namespace, a cgroup it cannot write.
//   - A `--reclaim` ends only what sessions of its own PID, cgroup and user
//     namespaces left. A record of another namespace sharing the ledger's
//     directory is reported `other-namespace`; where no reclaim ever saw
//     that namespace's PID 1 alive from an ancestor namespace (a sibling
//     container's, or one gone before a reclaim ran), it stays until the
//     next boot. The kernel gives no way to name a PID namespace's parent
//     from inside it. Where pidfds are not in pidfs (before Linux 6.9),
//     "seen alive" compares a start time, and a process started in the same
//     clock tick may be taken for that PID 1: the record then goes later,
//     never a process signalled.
//   - The grace's stop signal goes out once, at the start of the end: a
//     process forked into the session after it (the next child of a shell
//     loop that forks before its trap runs, as in `while :; do sleep 600 &
//     wait $!; done`) does not get it, and is ended by the SIGKILL at the
//     grace's end. So is a child the shell forked just before the signal but
//     that has not yet executed its program: it still runs the shell's
//     handler for a trapped signal, which the signal reaches and is then lost
//     at its exec (the child of `trap 'kill $pid' TERM; sleep 600 & pid=$!`
//     forked in that instant runs on until the SIGKILL). An Engine that must
//     end within the grace waits on its children without forking new ones
//     once it has the signal, and forks before it sets its trap.
//   - The Engine cannot call `setsid()`. It leads its own process group, and
//     the kernel refuses `setsid()` to a group leader (EPERM), unlike a child of
//     most SDKs. A program that needs a new session forks first and calls
//     `setsid()` in the child; as a command, `session-starter -- setsid -w
//     PROGRAM` does that and waits, so the status is still PROGRAM's (plain
//     `setsid` without `-w` exits at once, and the session ends with it).
//   - Group mode's gap. In group mode (chosen by `auto` where no cgroup v2 can
//     be made: no writable cgroup2 mount, a systemd-managed cgroup that is not
//     delegated), if session-starter itself is SIGKILLed the guard ends group
//     E and every process that carries the session mark
//     (`TestEscapeesEndWhenTheStarterIsKilledWithSIGKILL`), but a process that
//     left the group and scrubbed its environment, or runs as another user,
//     survives: nothing names it (with `--no-mark` every process that left
//     the group does: `TestWithoutTheMarkEscapeesOutliveAStarterKilledWithSIGKILL`).
//     cgroup mode closes it. The mark alone decides there: a process of this
//     user, started after the session, that got a copy of the mark's value
//     from an environment importer (`systemctl --user import-environment`,
//     `dbus-update-activation-environment --all`, tmux's
//     `update-environment`, direnv) is ended by the guard after a starter
//     SIGKILL, and by a reclaim of the session. cgroup mode, where the
//     cgroup decides, or `--no-mark` avoids it. Before Linux 6.13, cgroup mode's stop signal (`--grace`)
//     reaches the Engine, group E and the adopted escapees, not the rest of the
//     cgroup; `cgroup.kill` still reaches all.
//   - Orphans of a launcher's own children. Children session-starter had before
//     the session are left alone, but a process they orphan later is
//     re-parented to session-starter and cannot be told from an escapee of the
//     Engine: in group mode it is ended with the session.
//   - A process that joins group E from outside (a process of the launcher's
//     session calling `setpgid` into E) is signalled with the group; if it
//     cannot be killed (another user's, when session-starter is not root) it is
//     reported as a survivor (exit 125), with its PID, uid, state and command.
//   - Closed standard descriptors. If the launcher starts session-starter with
//     descriptor 0, 1 or 2 closed, the Go runtime opens `/dev/null` on it
//     before `main`, so the Engine gets `/dev/null` there rather than a closed
//     descriptor (`TestClosedStandardDescriptorsReachTheEngineAsDevNull`).
//   - The gate killed between the go-ahead and its exec (by someone else) is
//     reported as the Engine's death by SIGKILL, though PROGRAM never ran.
//   - Diagnostics at a terminal. While the Engine has the terminal,
//     session-starter is in the background; a `--log-level` diagnostic written
//     then to a terminal with `stty tostop` would stop it. Failure reports are
//     written after it has taken the terminal back.
//   - Very low process limits. Under an `RLIMIT_NPROC` so low that the Go
//     runtime cannot start its threads, session-starter (or its gate) aborts
//     with a Go runtime trace and exit status 2 before it can report; nothing
//     is executed.
//   - `members_seen` is a lower bound: it counts the live members one look at
//     group E or the session cgroup found after the first signal, not the
//     members before it, and is 0 when the end was confirmed without a scan.
//   - Storms of escapees. Where there are no `/proc/PID/task/*/children`
//     files or no pidfds (FreeBSD, the portable build), the descendants
//     of an adopted escapee are signalled only once they are adopted in turn,
//     one generation per look, and a fork storm of escapees may outlast the
//     kill budget: its survivors are listed and the exit is 125. On Linux a
//     tree of more than 4,096 processes below the adopted escapees is reached
//     over several looks.
//   - macOS and FreeBSD. macOS has no subreaper: a process that left group E
//     is ended at the end only if the lineage sweep finds it (a double fork's
//     grandchild whose parent exited before the end, only by a readable
//     mark) and verifies it; another user's is a survivor. On FreeBSD the
//     reaper ends it. On both, the guard cannot end such a process once the
//     starter is SIGKILLed.
//   - Thousands of processes of one program on saturated cores. Their exits
//     take the lock of that program's file mapping one at a time (state D
//     in `exit_mmap`); a CPU hog that preempts the holder stalls them all.
//     With `stress-ng --cpu 4` on 2 cores, 5,000 sleepers outlived the 10 s
//     budget in 9 of 27 runs (150 to 1,492 left): the exit is then 125 with
//     the survivors listed; in the other runs they ended in 0.7 to 8.7 s.
//   - Processes that are not dumpable. An escapee that made itself not
//     dumpable (`prctl(PR_SET_DUMPABLE, 0)`, as `ssh-agent` does) hides its
//     environment, and so its mark, from its own user. In group mode, once
//     the starter is SIGKILLed, nothing but that mark ties a daemon that
//     called `setsid` to the session: the guard does not end it, and removes
//     the ledger record, as it would for any same-user agent started later.
//     Root, or cgroup mode, ends it.
//   - Windows: the Engine's command line is the launcher's, byte for byte, from
//     PROGRAM on, where `Options.Argv` is the tail of session-starter's own
//     command line (always so for the binary); a library caller's other `Argv`
//     is quoted for the C runtime's parser, and a batch file's arguments are
//     quoted for `cmd.exe`. `launch.Start` on Windows stops a session by
//     closing its control pipe; without `ControlPipe` it can only terminate
//     session-starter (the job ends the tree; the Engine's status is lost). A
//     launcher that gives session-starter the same pipe as stdout and stderr
//     sees end of file on it only when session-starter exits, not when the
//     Engine's tree closed it (on Linux, stderr then goes to /dev/null at the
//     release).
//
// # Launchers in Python and Node
//
// The Python and Node examples in README.md's section "Using it from a
// launcher" are extracted and run as they stand by
// `TestReadmeLaunchersRunAsShown`. Fuller launchers that speak JSON-RPC to an MCP-style
// Engine are in `cmd/session-starter/testdata/`: `launcher.py`
// (`subprocess.Popen`, a control pipe through `pass_fds`) and `launcher.js`
// (`child_process.spawn`, a control socket as `stdio[3]`), with the Engine
// `mcp_engine.py` (`initialize`, `tools/list`, and a `tools/call` that starts
// subprocesses). The tests in `cmd/session-starter/sdk_linux_test.go` run them
// for real and check that no process outlives the session when the launcher
// is SIGKILLed or closes its control pipe, and that a clean shutdown reports
// the Engine's exit status to the launcher.
//
// # MCP and ACP clients
//
// A stdio server runs with --stdio: the parent watch, and the stdin
// watch where stdin is a pipe or a stream socket. Elsewhere (a terminal,
// /dev/null, a file; on Windows any) stdin is not watched, and that is no
// error. Closing the client ends the server's stdin, and the session ends
// a stdin grace (2 s) later. A client that dies ends it through the
// parent watch. In a shell pipeline, `producer | session-starter --stdio
// -- consumer` ends the consumer a stdin grace after the producer's end.
// As PID 1 of a container there is no parent to watch: only stdin is.
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
// make test-lifetime reads these four configs out of the docs. The
// official TypeScript client, MCP's or ACP's for Zed, runs each as
// printed, with an offline npx. Closed, SIGTERMed or SIGKILLed, it leaves
// nothing of the session within five seconds. Without session-starter,
// the same server leaves processes.
//
// The helpers that rewrite an SDK's server parameters
// (withSessionStarter, wrap_stdio_parameters) pass --stdio, and so does
// the Go transport; the helpers on launch() watch the same two things. The helpers carry
// XDG_RUNTIME_DIR, SESSION_STARTER_LEDGER_DIR and SESSION_STARTER_SESSION
// into the server's environment. The MCP SDKs' default environment drops
// them: a reclaim would then miss the session's ledger record, and a
// nested session its enclosing one.
//
//   - Node (the npm package): withSessionStarter(params) turns the
//     TypeScript SDK's StdioServerParameters into parameters for the
//     SDK's own StdioClientTransport; that transport's pid is then
//     session-starter's. StdioSessionTransport is a transport of the SDK's
//     shape, whose pid is the Engine's, with the ended record.
//     launchAgent starts an ACP agent and gives the streams the ACP SDK
//     takes. The package imports neither SDK. A call()'s endReleased()
//     ends what a released call left.
//   - Python (the wheel): wrap_stdio_parameters(params) does the same
//     for the Python SDK's StdioServerParameters. stdio_client(params) is
//     an async context manager that yields the read and write streams.
//     call_async is call() for asyncio. CallResult.end_released ends what
//     a released call left, this user's processes alone. Both packages
//     run `session-starter --end-released` for that, on Linux. anyio and mcp
//     are imported only by stdio_client. The Python SDK cannot be
//     installed where these are tested: they are tested against a fake
//     of its documented behaviour.
//   - Go: the module github.com/session-starter/session-starter/starter/mcp
//     has a Transport for the official Go SDK's client, on starter/launch.
//     Its Close ends the server's stdin and waits for the session's end.
//
// # Guarantees and how they are tested
//
// Each guarantee has a test that fails without it; `make test` runs them all
// (the long variants: `make torture`). The figures of their last runs are in
// `scripts/bench/NOTEBOOK.md`.
//
//   - No unguarded moment: SIGKILL of the starter at any instant leaves nothing
//     running, or a group the guard ends —
//     `TestStarterSIGKILLedAtAnyMomentLeavesNothingRunning` (random instant
//     0–30 ms and later), `TestStarterSIGKILLedLeavesTheGuardToEndTheTree`,
//     `TestStarterSIGKILLedAtTheAckRunsNothingOrEndsIt`.
//   - The guard and the gate killed at any moment: the session ends as a
//     failure, nothing left; the Engine is never released behind a dead guard —
//     `TestGuardSIGKILLedAtAnyMomentEndsTheSessionAs125`,
//     `TestGateSIGKILLedBeforeItsGoAheadRunsNothing`,
//     `TestGuardLostBeforeTheGoAheadRunsNothing`,
//     `TestGuardSIGKILLedEndsTheSessionAsAFailure`.
//   - Nothing outlives the session: children, grandchildren,
//     `setsid`/double-fork/`setpgid` escapees —
//     `TestGrandchildrenAndBackgroundChildrenEndWhenTheEngineExits`,
//     `TestProcessesThatLeaveTheGroupEndWhenTheEngineExits`,
//     `TestStopSignalsEndTheWholeTree`,
//     `TestControlDescriptorClosedByTheLauncherEndsTheSession`,
//     `TestLauncherSIGKILLedEndsTheSessionWithWatchParent`.
//   - Storms and width — `TestAForkStormIsEmptyWhenTheStarterExits`,
//     `TestAGroupOfThousandsOfSleepersAllEndBeforeTheStarterExits`.
//   - Never signal what may not be ours — `TestNoSignalReachesAReusedPID`
//     (pid_max 400 in a new PID namespace, canaries each leading a group),
//     `TestTheLaunchersGroupIsNeverSignalled`,
//     `TestAnEscapeeInTheLaunchersGroupIsEndedAloneNotItsGroup`, guard fuzzing
//     `FuzzFinishMessage`.
//   - Exact status — `TestExitCodesAreMirrored` (0–255 samples),
//     `TestSignalDeathsAreMirroredWithoutCore` (every signal whose default
//     action ends a process, `sys.DeadlySignals`, compared with a direct
//     launch, no core file, empty stderr; `TestBSDSignalDeathsAreMirroredWithoutCore`
//     on macOS and FreeBSD), `TestStatusTellsTheStartersOwnStatusFromTheEngines`;
//     `Die` itself — `TestDieEndsTheProcessByEveryDeadlySignalWithoutCoreOrTraceback`,
//     `TestDieOfASignalOutsideDeadlySignalsReturns` (on Linux, macOS and
//     FreeBSD).
//   - Transparency: argv, cwd, umask, environment, RLIMIT_NOFILE, signal mask,
//     descriptors at their numbers, nothing of ours —
//     `TestEngineSeesWhatADirectLaunchGives`,
//     `TestInheritedDescriptorReachesTheEngineAndNothingElse`,
//     `TestNohupStyleLaunchKeepsHUPAndINTIgnored`,
//     `TestIgnoredSignalsOtherThanHUPAndINTReachTheEngineAtDefault` (the
//     documented limit).
//   - The launcher reads EOF when the Engine's tree closes stdout —
//     `TestLauncherReadsEOFWhileTheTreeRunsAfterClosingStdout`,
//     `TestLauncherReadsEOFWithStderrMergedIntoStdout`; and on any other
//     pipe it passed (all but `--control-fd` and `--status-fd`, which
//     session-starter closes as the Engine is released) —
//     `TestAPipePassedAsFD5ReadsEOFWhenTheEngineClosesItsCopy`.
//   - Bad input: a clear error, nothing runs —
//     `TestBadInputIsAUsageErrorAndNothingRuns` (marker file),
//     `TestBadStatusDescriptorIsAUsageError`, `FuzzParse`.
//   - Parent watching is process-scoped —
//     `TestLauncherThreadExitDoesNotEndTheSession`,
//     `TestParentPIDOfAGoneLauncherRunsNothing`.
//   - Helpers pin nothing —
//     `TestInheritedDescriptorReachesTheEngineAndNothingElse` (the guard's
//     descriptors and cwd); session-starter itself moves to `/` once the
//     Engine runs, and the guard works there from its start —
//     `TestTheStarterAndTheGuardWorkInTheRootOnceTheEngineRuns`.
//   - /proc of another PID namespace is refused —
//     `TestNoAckAndNothingExecutedWhenProcIsAnotherNamespace`.
//   - Before Linux 6.9: the starter's kill(-E) while the Engine is pinned, the
//     guard's pin — `TestWithoutGroupSignalTheSessionEndsItsTreeAndMirrors`,
//     `TestWithoutGroupSignalThePinnedGuardEndsTheTree` (a seccomp filter makes
//     the kernel answer EINVAL).
//   - Resource failures: 125 and nothing run —
//     `TestForkFailingUnderRLIMIT_NPROCRunsNothing`,
//     `TestDevNullUnavailableAtSetupIsAContainmentFailure`,
//     `TestAckToAClosedStdoutIsAContainmentFailure`.
//   - No leaks — `testproc.CheckGoroutinesEnded` (no goroutine left) in every TestMain;
//     `TestAThousandSessionsInOneProcessLeakNoDescriptorAndNoZombie`.
//   - Grace, stop signal, timeout, forwarding, terminal, PID 1 —
//     `stop_linux_test.go`, `tty_linux_test.go`.
//   - A launcher that does not drain stderr: each diagnostic and the final
//     report is written only while the pipe has room, after a wait of at
//     most 100 ms, and dropped after it, so a full pipe never holds the
//     session or its exit (`TestAnUndrainedStderrDoesNotHoldTheExit`, at
//     `--log-level debug` too); the `ended` record says what the report did.
//   - Unusual launchers and habits: a closed stderr, a control descriptor that
//     could never end, a terminal with stdout redirected or a job in the
//     background, a command line at ARG_MAX, a script without `#!`, PROGRAM
//     without `--`, durations as `timeout` takes them — `habits_linux_test.go`
//     (`TestAClosedStderrCostsTheReportsNotTheSession`,
//     `TestAControlDescriptorThatCouldNeverEndIsRefused`,
//     `TestAnEngineCommandLineAtTheLimitOfSessionStartersOwnStarts`, …),
//     `TestAtATerminalWithStdoutRedirectedTheEngineStillReadsIt`,
//     `TestAJobInTheBackgroundThatReadsTheTerminalStopsAndFgResumesIt`.
//   - One end for every holder, one deadline: an Engine that left its group is
//     ended (by the starter and by the guard); an unkillable (frozen) Engine
//     ends the session at grace + kill budget, reported; every holder gets the
//     stop signal at the same moment, escapees and cgroups below the session
//     cgroup included; a reaped Engine's number spares nobody; the launcher's
//     own background child is left alone — `end_linux_test.go`
//     (`TestAnEngineThatLeftItsGroupIsEndedWithTheSession`,
//     `…ByTheGuardWhenTheStarterIsKilled`,
//     `TestAnUnkillableEngineEndsTheSessionAfterTheGracePlusTheKillBudget`,
//     `TestAnEscapeeGetsTheStopSignalAtTheSameMomentAsTheEnginesGroup`,
//     `TestTheStopSignalReachesACgroupBelowTheSessionCgroup`,
//     `TestAChildTheLauncherLeftBehindIsNotEndedWithTheSession`,
//     `TestAProcessThatGotTheEnginesNumberBackIsEndedWithTheSession` (pid_max
//     400 namespace)), `starter/adopt_linux_test.go`, `internal/end`.
//   - The guard cannot be disarmed, stalled or left stopped: a forged or
//     partial finish through `/proc`, a SIGSTOP —
//     `TestWhatTheEngineWritesIntoTheGuardsPipeCannotDisarmIt`,
//     `TestAStoppedGuardIsContinuedAtOnce`, guard's
//     `TestFinishContinuesAStoppedGuard`,
//     `TestFinishWhileTheGroupLivesKeepsTheGuardGuarding`, `FuzzFinishMessage`.
//   - macOS's code paths (signals by number under the pinning rules, no
//     subreaper, no cgroup, no pidfd to signal or name a process, the guard on
//     its pipe alone): the same session suite — `make test-portable`: every
//     test of `cmd/session-starter` against the portable build, each run under
//     a seccomp filter refusing `pidfd_send_signal` and
//     `PR_SET_CHILD_SUBREAPER`; skipped, saying why: the subreaper-sweep and
//     cgroup tests, the guard's pipe opened through `/proc/PID/fd`,
//     `RLIMIT_NPROC` (the seccomp launcher is a Go program); then the gate's,
//     guard's, starter's and internal packages' own tests with the tag.
//   - macOS and FreeBSD on their own kernels: status mirrored, every deadly
//     signal mirrored, a grandchild ended, the guard ending the group after
//     SIGKILL of the starter, control-descriptor EOF, a stop signal, the ack's
//     mode, an escapee ended by the reaper (FreeBSD) or by the lineage sweep
//     (macOS), a double-forked daemon ended (by the reaper; on macOS by the
//     mark) — `cmd/session-starter/bsd_test.go`; the kernel's records,
//     environments and (macOS) unique ids of known processes —
//     `internal/proc/proc_bsd_test.go`, `internal/sys/uniqid_darwin_test.go`.
//   - The lineage sweep's rules over fabricated tables (an orphan adopted by
//     launchd, PPID 1 no predicate, a stranger given a found PID, another
//     user's process, a fork during the pass, the mark only after the Engine)
//     — `internal/lineage/lineage_test.go`; `KERN_PROCARGS2` with hostile argv
//     — `internal/proc/procargs_test.go`.
//   - cgroup mode: escapees end, also when the starter is SIGKILLed; the cgroup
//     is removed; leftovers of dead starters only are cleaned; fallback where
//     cgroup2 is read-only or hidden — `cgroup_linux_test.go`,
//     `internal/cgroup`.
//
// # Performance
//
// What a session costs, as measured on this project's machine (2 shared
// cores, Linux 6.18; `scripts/bench/NOTEBOOK.md` has every run with its
// date, commit and command):
//
//   - Start-up: about 7 ms over a direct launch of `/bin/true`, and 9–10 ms
//     of CPU (tini: 1.4 ms and 2.2 ms); group mode about 1 ms less. The Go
//     runtime's own start is 2.4 ms of it.
//   - Reaction: the end begins within a few milliseconds of its trigger (the
//     Engine's exit, the launcher's, control EOF, SIGTERM); a 100-process
//     tree is gone in about 9 ms, and session-starter exits 2.5–4 ms after
//     its last process.
//   - Large groups end as fast as a bare `kill(-E, SIGKILL)` does: 1,000
//     processes in about 85 ms, 10,000 in about a second.
//   - Idle: no wake-ups at all (nothing polls on a tick); about 1.5 MiB of
//     memory (PSS) and 8–9 threads per session, the starter and the guard
//     together. 500 sessions started at once all start.
//
// `make bench` measures your machine (`scripts/bench/run.sh`, about 6
// minutes; it installs `tini` and `dumb-init` to compare with).
package main
