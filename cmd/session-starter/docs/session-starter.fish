# fish completion for session-starter, generated from the flags' help
# (cmd/session-starter/flags.go) by
#   go test ./cmd/session-starter -run TestShellDocsUpToDate -update

# Prints where the word being completed is: "flag", "value" (a flag's),
# or "program N", N the index among the words of PROGRAM's name.
function __session_starter_where
    set -l words (commandline -opc)
    set -l i 2
    while test $i -le (count $words)
        switch $words[$i]
            case --
                echo program (math $i + 1)
                return
            case --parent-pid --stdin-grace --control-fd --grace --stop-signal --timeout --status-fd --containment --max-tasks --max-memory --max-swap --max-cpu --call-limits --cgroup-parent --kill-budget --log-level --log-format --end-released -k -s
                set i (math $i + 1)
            case '-*'
            case '*'
                echo program $i
                return
        end
        set i (math $i + 1)
    end
    if test $i -gt (math (count $words) + 1)
        echo value
    else if string match -q -- '-*' (commandline -ct)
        echo flag
    else
        echo program $i
    end
end

# Prints the completions of PROGRAM and its arguments.
function __session_starter_program
    set -l start (string split ' ' -- (__session_starter_where))[2]
    set -l words (commandline -opc)
    set -l cur (commandline -ct)
    set -l line
    if test $start -le (count $words)
        set line (string escape -- $words[$start..-1])
    end
    complete -C (string join -- ' ' $line "$cur")
end

complete -c session-starter -f
complete -c session-starter -n 'string match -q "program *" (__session_starter_where)' -a '(__session_starter_program)'
complete -c session-starter -n 'test (__session_starter_where) = flag' -l ack -d 'Write the ack line to stdout once containment exists, before PROGRAM…'
complete -c session-starter -n 'test (__session_starter_where) = flag' -l stdio -d 'The Engine is a stdio server (MCP, ACP, a language server)…'
complete -c session-starter -n 'test (__session_starter_where) = flag' -l watch-parent -d 'End the session when the process that started session-starter is gone'
complete -c session-starter -n 'test (__session_starter_where) = flag' -l parent-pid -x -d 'The launcher\'s own PID P'
complete -c session-starter -n 'test (__session_starter_where) = flag' -l watch-stdin -d 'End the session when the launcher\'s end of the Engine\'s standard input…'
complete -c session-starter -n 'test (__session_starter_where) = flag' -l stdin-grace -x -d 'With --watch-stdin or --stdio, how long D the Engine is given to exit…'
complete -c session-starter -n 'test (__session_starter_where) = flag' -l control-fd -x -d 'End the session when descriptor N reaches end of input; data read from…'
complete -c session-starter -n 'test (__session_starter_where) = flag' -s k -l grace -x -d 'On every end of the session, send --stop-signal and then SIGCONT to…'
complete -c session-starter -n 'test (__session_starter_where) = flag' -s s -l stop-signal -x -d 'The signal SIG that --grace sends first: a name (TERM, SIGINT, usr1) or…'
complete -c session-starter -n 'test (__session_starter_where) = flag' -l timeout -x -d 'End the session D after the Engine was released; exit status 124 (as…'
complete -c session-starter -n 'test (__session_starter_where) = flag' -l status-fd -x -d 'Write JSON records for launchers on descriptor N: started when the…'
complete -c session-starter -n 'test (__session_starter_where) = flag' -l containment -x -d 'Hold the session in mode M: group (the process group plus the subreaper…'
complete -c session-starter -n 'test (__session_starter_where) = flag' -l max-tasks -x -d 'Let the session\'s tree have at most N tasks live at once, threads…'
complete -c session-starter -n 'test (__session_starter_where) = flag' -l max-memory -x -d 'Let the session\'s tree use at most SIZE of memory, page cache included…'
complete -c session-starter -n 'test (__session_starter_where) = flag' -l max-swap -x -d 'With --max-memory, the swap SIZE the session\'s tree may use…'
complete -c session-starter -n 'test (__session_starter_where) = flag' -l max-cpu -x -d 'Let the session\'s tree use at most CPUS of CPU time (cpu.max over 100…'
complete -c session-starter -n 'test (__session_starter_where) = flag' -l call-limits -x -d 'Let the Engine\'s contained calls (Go package starter/contain) set the…'
complete -c session-starter -n 'test (__session_starter_where) = flag' -l cgroup-parent -x -d 'Make the session cgroup in the cgroup v2 directory DIR (a delegated…'
complete -c session-starter -n 'test (__session_starter_where) = flag' -l kill-budget -x -d 'After the grace, send SIGKILL in rounds for up to D before reporting…'
complete -c session-starter -n 'test (__session_starter_where) = flag' -l containers -d 'PROGRAM is a docker run or podman run command line (global options…'
complete -c session-starter -n 'test (__session_starter_where) = flag' -l no-mark -d 'Leave the session mark out of the Engine\'s environment'
complete -c session-starter -n 'test (__session_starter_where) = flag' -l release-on-exit -d 'When the Engine exits on its own, end nothing: what it left running…'
complete -c session-starter -n 'test (__session_starter_where) = flag' -l log-level -x -d 'Diagnostics on stderr at level L: debug, info, warn, error, disabled'
complete -c session-starter -n 'test (__session_starter_where) = flag' -l log-format -x -d 'The diagnostics\' format F: auto, json or console (zerolog)'
complete -c session-starter -n 'test (__session_starter_where) = flag' -l reclaim -d 'Run no PROGRAM: end what dead sessions of this user left behind, where…'
complete -c session-starter -n 'test (__session_starter_where) = flag' -l dry-run -d 'With --reclaim: list what would be ended, and end nothing'
complete -c session-starter -n 'test (__session_starter_where) = flag' -l end-released -x -d 'Run no PROGRAM: end what a call run with --release-on-exit left running'
complete -c session-starter -n 'test (__session_starter_where) = flag' -l explain -d 'Run no PROGRAM: print the mode --containment would give here and why (a…'
complete -c session-starter -n 'test (__session_starter_where) = flag' -l version -d 'Print the version and exit'
complete -c session-starter -n 'test (__session_starter_where) = flag' -s h -l help -d 'Print this help and exit'
