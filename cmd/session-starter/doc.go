// Command session-starter runs a program (the Engine) so that when the
// session ends — the Engine exits, the launcher dies, the control
// descriptor closes, a stop signal arrives — every process the Engine
// started ends too, and the launcher gets the Engine's exact exit status.
//
//	session-starter [flags] [--] PROGRAM [ARG...]
//
// This is the manual: how a session is held and ended, the containment
// modes, the terminal, Windows, the guarantees with the tests that prove
// them, and how performance is measured. The flags, the ack line, the exit
// statuses, the status records and the limits are in README.md, for
// launchers in any language; session-starter --help lists the flags too.
//
// # Processes
//
//		launcher ── starts ──> starter (Run)     the launcher's group/session
//		                        ├── guard          own group; ends E if the starter is gone
//		                        └── gate → Engine  leader of a NEW group E; the
//		                              └── …        starter's child, unreaped until
//		                                           E has no live member
//
//	  - starter: the `session-starter` process. It watches the Engine, the
//	    launcher, the control descriptor and stop signals, then ends the session
//	    (below) and mirrors the Engine's status. It is a child subreaper
//	    (`PR_SET_CHILD_SUBREAPER`): processes that leave group E are re-parented
//	    to it, reaped as they exit, and ended with the session. Children it had
//	    before it started the gate (a wrapper's `job & exec session-starter …`)
//	    are not the session's: reaped when they exit, never signalled.
//	  - gate: Go cannot run code between fork and exec, so the starter starts its
//	    own binary again in a hidden mode as the leader of a new process group E. The
//	    gate waits for the go-ahead and then `execve`s PROGRAM (same PID, same group).
//	    If the starter is gone first, the gate exits without executing anything.
//	    The gate gets the Engine's command line and environment in a memfd, not
//	    on its own command line, so any Engine command line with which
//	    session-starter itself could be executed starts (only the kernel's copy
//	    of PROGRAM's path is added, as in any exec).
//	  - guard: another process of the same binary, in its own process group. If
//	    the starter is gone — SIGKILL included — the guard ends the Engine, group E
//	    and the session cgroup (SIGKILL in rounds until all are empty or the whole
//	    end's deadline). It obeys the starter's "finish" only once it has seen all
//	    of them empty itself: a finish written into its pipe by a same-user Engine
//	    (through `/proc/GUARD/fd`) does not disarm it, and after survivors it keeps
//	    guarding and ends them again once the starter has exited. It reads its pipe
//	    only as far as poll shows, while watching the starter, so a partial message
//	    cannot stall it. A guard stopped with SIGSTOP is continued at the end of the
//	    session and reaped; one that then does not exit is reported (exit 125).
//
// The end. Every end of a session — the Engine's exit, a stop signal, the
// launcher gone, the control descriptor closed, `--timeout` — is one routine
// (package `internal/end`), in the starter and in the guard alike. The session
// is held by a list of holders: the Engine itself (its pidfd: an Engine that
// moved into another group is ended all the same), group E, the processes that
// left it and were adopted (and the groups they lead), and in cgroup mode the
// session cgroup with every cgroup below it. One deadline for the whole end:
// grace + kill budget. With a grace, the stop signal and SIGCONT go to every
// holder at the same moment; then SIGKILL to every holder at the same moment,
// again after 50 ms, doubling up to 500 ms, until all are empty or the
// deadline; then one outcome (`empty`, `unconfirmed`, `survivors`, `refused`)
// and one survivor list. Between looks the end sleeps in poll on what the
// kernel announces (the Engine's pidfd, `cgroup.events`, SIGCHLD); only group
// E, whose last exit nothing announces, is looked at again after a backoff
// (250 µs doubling to 20 ms). The Engine is reaped by one owner, within the
// deadline: an Engine that cannot be killed (frozen) is reported, not waited
// for.
//
// PROGRAM is executed only after the guard is armed on E, so there is no moment at
// which the Engine runs and nothing would end it. Every signal to E goes through a
// pidfd with `PIDFD_SIGNAL_PROCESS_GROUP`, so it cannot reach a process that
// merely reused a number. A process that left E is signalled only through a pidfd
// opened while it is session-starter's own unreaped child, and the group it leads
// only if that group is not session-starter's, the guard's, the launcher's or the
// terminal's foreground group.
//
// # Containment modes
//
// `--containment auto|group|cgroup` (default `auto`) says how the session is
// held on Linux. The mode in effect is in the ack line (`"mode"`), the
// `started` status record and the `session end` log event.
//
//   - group: the Engine's process group, plus the subreaper sweep of the
//     processes that left it (above). Limit: if session-starter itself is
//     SIGKILLed, the guard ends group E, but processes that left it live on.
//   - cgroup: as group, and the session also gets a cgroup v2 of its own.
//   - *Where*: a child of session-starter's own cgroup (`/proc/self/cgroup`,
//     the `0::` line) in the cgroup2 mount found in `/proc/self/mountinfo`
//     (here the hybrid mount at `/sys/fs/cgroup/unified`), named
//     `session-starter-PID-STARTTIME-N`: the starter's PID, its start time
//     (`/proc/self/stat` field 22) and a per-process number. A child rather
//     than a sibling: where the starter may write its own cgroup it may make
//     children, and a fresh child has no controllers enabled below it, so the
//     "no internal processes" rule of delegated trees never refuses the move.
//   - *Joining*: the gate writes its own PID to the session cgroup's
//     `cgroup.procs` (a descriptor handed to it) before it reports ready —
//     not `CLONE_INTO_CGROUP`, which kills children at birth on this kernel
//     once a cgroup was ever killed — and the starter reads
//     `/proc/GATE/cgroup` before the guard is relied on. Everything the
//     Engine starts is born in it, `setsid` and double forks included.
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
//     `--containment cgroup` where that is impossible exits 125 with the
//     reason, and nothing is executed.
//
// Escapes that remain in cgroup mode: a privileged Engine can move itself
// to another cgroup (group E and the sweep still apply to it); work handed to
// daemons outside the tree (`docker run`, `systemd-run`) was never a
// descendant. Tested in `cmd/session-starter/cgroup_linux_test.go`.
//
// # What each mode contains, side by side
//
// `scripts/compare-supervisors.sh` (installs tini, dumb-init and bubblewrap when missing) runs an
// Engine that leaves a background member of its group and a `setsid` escapee, ends the session three
// ways, and says which of the two are gone (member / escapee). Run on Linux 6.18, 2 cores,
// 2026-11-29. systemd-run could not be run here (no systemd); its row is from its documentation.
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
// handed to a daemon outside the tree (`docker run`, `systemd-run`), which was never a descendant.
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
// Only the Engine's own stops are seen, as a shell sees only its children's. At the end session-starter takes
// the terminal back before it exits, and if session-starter is SIGKILLed the
// guard gives the terminal back to session-starter's group after ending the
// Engine's. Tested in a real pseudo-terminal under tmux
// (`cmd/session-starter/tty_linux_test.go`).
//
// # The requested form: a Go Engine that contains itself
//
// A Go Engine that calls `starter.ContainIfRequested()` first thing in `main`
// becomes its own session starter when its launcher sets
// `SESSION_STARTER_CONTAIN=1`:
//
//	func main() {
//		starter.ContainIfRequested() // never returns when requested
//		serve(os.Stdin, os.Stdout)
//	}
//
// The process then behaves as `session-starter --ack --watch-parent -- <its own
// command line>`: it writes the ack line, runs the same binary with the same
// arguments and `argv[0]` as the Engine behind the gate and the guard, with
// `SESSION_STARTER_CONTAIN` removed from the Engine's environment, and exits
// with the Engine's status. A launcher reads the ack line exactly as above.
// Without the variable the call returns at once (about 20 ns, no allocation:
// `BenchmarkContainIfRequestedWithoutTheVariable`). Any other value than `1` is
// removed from the environment and ignored.
//
// The gate and the guard are helper processes started from a binary. If a
// `session-starter` is found in `PATH`, it plays them, and the Engine's `init`
// functions run only in the starter and in the Engine. It must speak the same
// protocol of the hidden modes as the `starter` package the Engine was built
// with (the first argument of a hidden mode carries it); if it does not, the
// gate and the guard refuse, the gate's report names both protocols, and the
// session fails with status 125 (TestAHiddenModeOfAnotherVersionRefusesNamingBothProtocols). Without an
// installed `session-starter`, the Engine's own binary (`/proc/self/exe`) plays
// them: its `init` functions then also run in the gate and in the guard, which
// lasts as long as the session. So keep `init` free of side effects, and call
// `ContainIfRequested` before anything else in `main`: it is also what runs
// those hidden modes.
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
//     refused with exit status 126 and nothing runs. Other programs get their
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
// execute; the Engine's command line arrives byte for byte; `starter.Launch`
// passes its pipes as handles; batch-file arguments
// with `&|^<>()!`, spaces, quotes and a trailing backslash arrive unchanged,
// and a newline is refused. Wine cannot show timing, races under load, or
// console control events (`GenerateConsoleCtrlEvent` fails there), and its
// `cmd.exe` does not implement the `%cd:~,%` substring the `%` quoting relies
// on: those tests skip under Wine and run on real Windows in the GitHub
// workflow (`.github/workflows/ci.yml`, `windows-latest`).
//
// # Guarantees and how they are tested
//
// Each guarantee has a test that fails without it; `make test` runs them all
// (the long variants: `make torture`). Figures from the default runs on this
// project's CI machine (Linux 6.18, 2 cores, shared), 2026-11-29.
//
// `make torture`, one run the same day (default `auto` = cgroup mode): SIGKILL
// of the starter at a random instant, 5,000 trials (the Engine had run in
// 3,196), survivors 0; of the guard, 5,000 trials, all exit 125, survivors 0;
// of the gate, 5,000 trials, survivors 0; 1,000 sessions under PID reuse
// (pid_max 400): 12,649 canaries, 13,414 PIDs handed out again, 0 canaries
// killed; 40 fork storms of up to 2,048 processes, 1 kill round each; 10,000
// sleepers ended in 985 ms; 5,000 `starter.Run` calls in one process: 9
// descriptors before and after, no child left.
//
//	| guarantee | tests | last figure |
//	|---|---|---|
//	| No unguarded moment: SIGKILL of the starter at any instant leaves nothing running, or a group the guard ends | `TestStarterSIGKILLedAtAnyMomentLeavesNothingRunning` (random instant 0–30 ms and later), `TestStarterSIGKILLedLeavesTheGuardToEndTheTree`, `TestStarterSIGKILLedAtTheAckRunsNothingOrEndsIt` | 300 trials; the Engine had run in 132–204; survivors 0 |
//	| The guard and the gate killed at any moment: the session ends as a failure, nothing left; the Engine is never released behind a dead guard | `TestGuardSIGKILLedAtAnyMomentEndsTheSessionAs125`, `TestGateSIGKILLedBeforeItsGoAheadRunsNothing`, `TestGuardLostBeforeTheGoAheadRunsNothing`, `TestGuardSIGKILLedEndsTheSessionAsAFailure` | 300 trials each; all 125 with one report line; survivors 0 |
//	| Nothing outlives the session: children, grandchildren, `setsid`/double-fork/`setpgid` escapees | `TestGrandchildrenAndBackgroundChildrenEndWhenTheEngineExits`, `TestProcessesThatLeaveTheGroupEndWhenTheEngineExits`, `TestStopSignalsEndTheWholeTree`, `TestControlDescriptorClosedByTheLauncherEndsTheSession`, `TestLauncherSIGKILLedEndsTheSessionWithWatchParent` | survivors 0 |
//	| Storms and width | `TestAForkStormIsEmptyWhenTheStarterExits`, `TestAGroupOfThousandsOfSleepersEndsWithinTheBudget` | storms of up to 2,047 processes: 1 kill round, ~220 ms; 5,000 sleepers: 0.5–1.2 s, 1–2 rounds |
//	| Never signal what may not be ours | `TestNoSignalReachesAReusedPID` (pid_max 400 in a new PID namespace, canaries each leading a group), `TestTheLaunchersGroupIsNeverSignalled`, `TestAnEscapeeInTheLaunchersGroupIsEndedAloneNotItsGroup`, guard fuzzing `FuzzFinishMessage` | 200 sessions, ~2,400 canaries, ~2,350 PIDs handed out again, 0 canaries killed |
//	| Exact status | `TestExitCodesAreMirrored` (0–255 samples), `TestSignalDeathsAreMirroredWithoutCore` (TERM INT KILL SEGV ABRT PIPE USR1 QUIT HUP BUS, compared with a direct launch, no core file, empty stderr), `TestStatusTellsTheStartersOwnStatusFromTheEngines` | |
//	| Transparency: argv, cwd, umask, environment, RLIMIT_NOFILE, signal mask, descriptors at their numbers, nothing of ours | `TestEngineSeesWhatADirectLaunchGives`, `TestInheritedDescriptorReachesTheEngineAndNothingElse`, `TestNohupStyleLaunchKeepsHUPAndINTIgnored`, `TestIgnoredSignalsOtherThanHUPAndINTReachTheEngineAtDefault` (the documented limit) | |
//	| The launcher reads EOF when the Engine's tree closes stdout | `TestLauncherReadsEOFWhileTheTreeRunsAfterClosingStdout`, `TestLauncherReadsEOFWithStderrMergedIntoStdout` | |
//	| Bad input: a clear error, nothing runs | `TestBadInputIsAUsageErrorAndNothingRuns` (marker file), `TestBadStatusDescriptorIsAUsageError`, `FuzzParse` | FuzzParse: 800,000 inputs, no failure |
//	| Parent watching is process-scoped | `TestLauncherThreadExitDoesNotEndTheSession`, `TestParentPIDOfAGoneLauncherRunsNothing` | |
//	| Helpers pin nothing | `TestInheritedDescriptorReachesTheEngineAndNothingElse` (the guard's descriptors and cwd) | |
//	| /proc of another PID namespace is refused | `TestNoAckAndNothingExecutedWhenProcIsAnotherNamespace` | |
//	| Before Linux 6.9: the starter's kill(-E) while the Engine is pinned, the guard's pin | `TestWithoutGroupSignalTheSessionEndsItsTreeAndMirrors`, `TestWithoutGroupSignalThePinnedGuardEndsTheTree` (a seccomp filter makes the kernel answer EINVAL) | |
//	| Resource failures: 125 and nothing run | `TestForkFailingUnderRLIMIT_NPROCRunsNothing`, `TestDevNullUnavailableAtSetupIsAContainmentFailure`, `TestAckToAClosedStdoutIsAContainmentFailure` | |
//	| No leaks | goleak in every TestMain; `TestAThousandSessionsInOneProcessLeakNoDescriptorAndNoZombie` | 1,000 `starter.Run` calls: 9 descriptors before and after, no child left |
//	| Grace, stop signal, timeout, forwarding, terminal, PID 1 | `stop_linux_test.go`, `tty_linux_test.go` | |
//	| Unusual launchers and habits: a closed stderr, a control descriptor that could never end, a terminal with stdout redirected or a job in the background, a command line at ARG_MAX, a script without `#!`, PROGRAM without `--`, durations as `timeout` takes them | `habits_linux_test.go` (`TestAClosedStderrCostsTheReportsNotTheSession`, `TestAControlDescriptorThatCouldNeverEndIsRefused`, `TestAnEngineCommandLineAtTheLimitOfSessionStartersOwnStarts`, …), `TestAtATerminalWithStdoutRedirectedTheEngineStillReadsIt`, `TestAJobInTheBackgroundThatReadsTheTerminalStopsAndFgResumesIt` | |
//	| One end for every holder, one deadline: an Engine that left its group is ended (by the starter and by the guard); an unkillable (frozen) Engine ends the session at grace + kill budget, reported; every holder gets the stop signal at the same moment, escapees and cgroups below the session cgroup included; a reaped Engine's number spares nobody; the launcher's own background child is left alone | `end_linux_test.go` (`TestAnEngineThatLeftItsGroupIsEndedWithTheSession`, `…ByTheGuardWhenTheStarterIsKilled`, `TestAnUnkillableEngineEndsTheSessionAfterTheGracePlusTheKillBudget`, `TestAnEscapeeGetsTheStopSignalAtTheSameMomentAsTheEnginesGroup`, `TestTheStopSignalReachesACgroupBelowTheSessionCgroup`, `TestAChildTheLauncherLeftBehindIsNotEndedWithTheSession`, `TestAProcessThatGotTheEnginesNumberBackIsEndedWithTheSession` (pid_max 400 namespace)), `starter/adopt_linux_test.go`, `internal/end` | frozen Engine, `--grace 1s --kill-budget 2s`: exit 125 after 3.0 s in group and in cgroup mode |
//	| The guard cannot be disarmed, stalled or left stopped: a forged or partial finish through `/proc`, a SIGSTOP | `TestWhatTheEngineWritesIntoTheGuardsPipeCannotDisarmIt`, `TestAStoppedGuardIsContinuedAndReapedAtTheEnd`, `TestFinishWhileTheGroupLivesKeepsTheGuardGuarding`, `FuzzFinishMessage` | |
//	| cgroup mode: escapees end, also when the starter is SIGKILLed; the cgroup is removed; leftovers of dead starters only are cleaned; fallback where cgroup2 is read-only or hidden | `cgroup_linux_test.go`, `internal/cgroup` | |
//
// # Performance
//
// `make bench` (`scripts/bench/run.sh`, about 4 minutes) prints one table; the
// one below is from a single run. It installs `tini` and `dumb-init` (and
// `gcc`, `linux-perf`) with apt-get when they are missing. To rerun:
//
//	make bench                          # the table below
//	BENCH_IDLE_LONG=1 make bench        # adds the 120 s idle window
//	BENCH_OUT=/tmp/bench.md make bench  # also writes the table to a file
//
// Machine: 2 cores, AMD EPYC; kernel 6.18.44-fc-v595; 2026-11-29 19:02 UTC; go1.26.8; session-starter 5d04c0c
//
//	| | measure | runs | median (ms) | p99 (ms) | note |
//	|---|---|---:|---:|---:|---|
//	| a | /bin/true | 200 | 0.910 | 1.815 | baseline; CPU (user+sys, median) 0.810 ms |
//	| a | bin/session-starter -- /bin/true | 200 | 14.500 | 32.937 | overhead 13.590 ms; CPU (user+sys, median) 14.200 ms |
//	| a | tini -s -- /bin/true | 200 | 2.232 | 5.072 | overhead 1.322 ms; CPU (user+sys, median) 2.044 ms |
//	| a | dumb-init /bin/true | 200 | 2.079 | 3.472 | overhead 1.169 ms; CPU (user+sys, median) 1.931 ms |
//	| b | exit: trigger → last process gone | 200 | 9.043 | 18.789 | 100-process tree |
//	| b | exit: trigger → first process gone (≥ first kill) | 200 | 1.849 | 12.004 | 100-process tree |
//	| b | exit: trigger → session-starter exited | 200 | 13.355 | 21.110 | 100-process tree |
//	| b | parent: trigger → last process gone | 200 | 8.682 | 14.807 | 100-process tree |
//	| b | parent: trigger → first process gone (≥ first kill) | 200 | 1.573 | 10.222 | 100-process tree |
//	| b | parent: trigger → session-starter exited | 200 | 12.770 | 23.126 | 100-process tree |
//	| b | control: trigger → last process gone | 200 | 9.137 | 14.153 | 100-process tree |
//	| b | control: trigger → first process gone (≥ first kill) | 200 | 1.577 | 12.170 | 100-process tree |
//	| b | control: trigger → session-starter exited | 200 | 13.269 | 19.908 | 100-process tree |
//	| b | sigterm: trigger → last process gone | 200 | 8.737 | 13.442 | 100-process tree |
//	| b | sigterm: trigger → first process gone (≥ first kill) | 200 | 2.122 | 9.704 | 100-process tree |
//	| b | sigterm: trigger → session-starter exited | 200 | 13.004 | 19.570 | 100-process tree |
//	| b | exit: trigger → first kill syscall | 200 | 8.970 | 17.057 | perf record -k mono, syscalls:sys_enter_pidfd_send_signal/kill |
//	| b | parent: trigger → first kill syscall | 200 | 8.748 | 14.536 | perf record -k mono, syscalls:sys_enter_pidfd_send_signal/kill |
//	| b | control: trigger → first kill syscall | 200 | 9.180 | 14.368 | perf record -k mono, syscalls:sys_enter_pidfd_send_signal/kill |
//	| b | sigterm: trigger → first kill syscall | 200 | 8.858 | 13.592 | perf record -k mono, syscalls:sys_enter_pidfd_send_signal/kill |
//	| c | end 100: session-starter (SIGTERM) → last gone | 200 | 9.232 | 17.307 | 100 sleeping processes |
//	| c | end 100: bare killpg → last gone | 200 | 8.075 | 20.594 | 100 sleeping processes |
//	| c | end 100: session-starter (SIGTERM) → exited | 200 | 12.844 | 26.553 | 100 sleeping processes |
//	| c | end 1000: session-starter (SIGTERM) → last gone | 30 | 81.480 | 134.900 | 1000 sleeping processes |
//	| c | end 1000: bare killpg → last gone | 30 | 78.371 | 117.929 | 1000 sleeping processes |
//	| c | end 1000: session-starter (SIGTERM) → exited | 30 | 96.166 | 153.166 | 1000 sleeping processes |
//	| c | end 10000: session-starter (SIGTERM) → last gone | 5 | 965.148 | 1098.899 | 10000 sleeping processes |
//	| c | end 10000: bare killpg → last gone | 5 | 705.760 | 1087.209 | 10000 sleeping processes |
//	| c | end 10000: session-starter (SIGTERM) → exited | 5 | 1096.496 | 1248.605 | 10000 sleeping processes |
//	| c | fork storm: session-starter (SIGTERM) → group empty | 20 | 12.598 | 21.286 | ≤ 2000 forks, 20ms apart per process; live at trigger: median 128 (session), 128 (bare); emptiness by the harness's /proc scan |
//	| c | fork storm: bare killpg → group empty | 20 | 11.396 | 24.812 | ≤ 2000 forks, 20ms apart per process; live at trigger: median 128 (session), 128 (bare); emptiness by the harness's /proc scan |
//	| c | fork storm: session-starter (SIGTERM) → exited | 20 | 13.816 | 23.817 | ≤ 2000 forks, 20ms apart per process; live at trigger: median 128 (session), 128 (bare); emptiness by the harness's /proc scan |
//	| d | idle 10s: starter | 1 | 0.00 wake-ups/s | - | RSS 3.8 MiB, 7 threads |
//	| d | idle 10s: guard | 1 | 0.00 wake-ups/s | - | RSS 3.3 MiB, 5 threads |
//	| d | idle 10s: all supervisor processes | 1 | 0.00 wake-ups/s | - | RSS 7.1 MiB total |
//
// This run is in the default mode, `auto`, which is cgroup mode on this machine
// (root, a writable cgroup2 mount). In cgroup mode the first kill is the write
// to `cgroup.kill`, which the perf rows ("first kill syscall", traced on
// `pidfd_send_signal`/`kill` only) do not see: they show the later group end
// instead. "First process gone" (1.6–2.1 ms median) is the upper bound of the
// reaction in this mode. The earlier group-mode run (18:08 UTC the same day)
// measured trigger → first kill syscall at 0.22–0.61 ms median for all four
// triggers.
//
// How each row is measured (`scripts/bench/harness`, a subreaper that reaps
// every process it starts):
//
//   - a — wall time from fork to `wait4` of each command, the four commands
//     round robin so that noise falls on all of them alike, after 20 warm-up
//     runs; CPU is user plus system time of the command and of the children it
//     reaped (for session-starter: the gate, the Engine and the guard).
//   - b — the Engine is a tree of 100 paused processes (`scripts/bench/tree.c`)
//     that prints its PIDs; the harness opens a pidfd of each and checks it is in
//     the Engine's group. *Trigger* is the instant (CLOCK_MONOTONIC) just before
//     the harness's own syscall: `pidfd_send_signal(SIGKILL)` to the Engine alone
//     (Engine exit), to the launcher shell (with `--watch-parent`), `close()` of
//     the control pipe's only write end (`--control-fd 3`), or SIGTERM to
//     session-starter. *Gone* is when `epoll_wait` reports the member's pidfd
//     readable (the process has exited). *First kill syscall* comes from
//     `perf record -k mono` of `pidfd_send_signal`/`kill` by session-starter,
//     matched to the trigger times; "first process gone" is only an upper bound
//     of it (a SIGKILLed process takes time to exit).
//   - c — the same tree of 100, 1,000 or 10,000 processes ended by
//     session-starter (SIGTERM to it) and by a bare `kill(-E, SIGKILL)` of a
//     tree the harness leads itself, alternately, "gone" measured the same way.
//     The fork storm (`scripts/bench/storm.c`) forks at most 2,000 times, each
//     process every 20 ms, each with `alarm(10)`; the trigger lands 150 ms in,
//     and emptiness is the harness's own /proc scan (the storm's PIDs are not
//     known in advance).
//   - d — after 1 s of an idle session, voluntary plus involuntary context
//     switches summed over `/proc/PID/task/*/status` (every thread) of the
//     starter and of the guard (the starter's child named `session-guard`), over
//     the window; RSS is `VmRSS`.
//
// # Targets
//
//	| target | measured (run above) | |
//	|---|---|---|
//	| trigger → first kill syscall, median < 2 ms, each trigger | group mode (an 18:08 run): exit 0.61, parent 0.49, control 0.22, SIGTERM 0.39 ms (p99 ≤ 3.5 ms); cgroup mode (run above): first process gone 1.57–2.12 ms, an upper bound of the `cgroup.kill` write | met |
//	| time to empty within 2 ms of a bare killpg | run above (cgroup mode): 100: 9.2 vs 8.1 ms (+1.2); 1,000: 81.5 vs 78.4 ms (+3.1); 10,000: 965 vs 706 ms (+259, 5 runs each; an earlier run had −246); storm: 12.6 vs 11.4 ms (+1.2) | met at 100 and in the storm; missed at 1,000 by 1.1 ms and at 10,000 |
//	| start-up overhead ≤ 3 ms and ≤ 3× tini's | 13.6 ms; tini 1.3 ms (10.3×), dumb-init 1.2 ms; CPU 14.2 ms against tini's 2.0 ms | missed by ~10.6 ms |
//	| idle ≤ 0.1 wake-ups/s per process over 120 s | starter 0.03, guard 0.03 (a 120 s run the same day, `BENCH_IDLE_LONG=1`); 0.00 over the 10 s above | met |
//	| all supervisor processes ≤ 12 MiB RSS | 7.1 MiB (starter 3.8, guard 3.3) | met |
//
// Why the misses:
//
//   - Start-up. A session starts three Go programs — the starter, the gate
//     (which then executes PROGRAM) and the guard. On this VM one Go program
//     costs about 3 ms of CPU to start and exit (`session-starter --version`:
//     3.0 ms; `/bin/true`: 0.9 ms), so three of them alone are about 9 ms of
//     CPU, on two cores. The rest is the session's own work: the /proc scan that
//     confirms the group empty (~17 µs per PID on the machine), the subreaper
//     sweep listing `/proc/self/task/*/children`, and the wait for the guard to
//     exit; in cgroup mode also making, joining, killing and removing the
//     session cgroup. tini is one C process. Cut so far: the gate and the guard
//     start side by side, the children listing reads raw, and the end is
//     confirmed without a /proc scan when every member is in the starter's
//     subtree: the exited Engine is reaped early (its status kept) with the
//     adopted zombies, and ESRCH from the pidfd group signal shows the group
//     empty (17.4 → 13.6 ms overhead between two `make bench` runs the same
//     day).
//   - Time to empty. In group mode, and after `cgroup.kill` in cgroup mode,
//     ending a group is confirmed by scanning all of /proc
//     (`BenchmarkLiveMembers`: ~1.4 ms with 85 PIDs, ~22 ms with 1,185), with a
//     back-off between scans of up to 20 ms. While 1,000 or 10,000 members exit,
//     those scans and the sweep's reaping compete on two cores with the exiting
//     processes, and the back-off adds up to one interval after the last exit.
//
// Go benchmarks of the hot paths:
//
//	go test -run '^$' -bench . ./internal/proc/ ./internal/end/
package main
