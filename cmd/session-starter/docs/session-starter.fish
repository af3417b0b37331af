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
            case --parent-pid --stdin-grace --control-fd --timeout --grace --stop-signal --kill-budget --containment --max-tasks --max-memory --max-swap --max-cpu --call-limits --cgroup-parent --status-fd --log-level --log-format --end-released -k -s
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
complete -c session-starter -n 'test (__session_starter_where) = flag' -l stdio -d 'a stdio server: --watch-parent, --watch-stdin'
complete -c session-starter -n 'test (__session_starter_where) = flag' -l watch-parent -d 'end the session when the launcher is gone'
complete -c session-starter -n 'test (__session_starter_where) = flag' -l parent-pid -x -d 'the launcher\'s PID; implies --watch-parent'
complete -c session-starter -n 'test (__session_starter_where) = flag' -l watch-stdin -d 'end the session when stdin hangs up'
complete -c session-starter -n 'test (__session_starter_where) = flag' -l stdin-grace -x -d 'time to exit by itself after the hang-up'
complete -c session-starter -n 'test (__session_starter_where) = flag' -l control-fd -x -d 'end the session at end of input on N'
complete -c session-starter -n 'test (__session_starter_where) = flag' -l timeout -x -d 'end the session after D; exit 124'
complete -c session-starter -n 'test (__session_starter_where) = flag' -s k -l grace -x -d 'send --stop-signal first, SIGKILL after D'
complete -c session-starter -n 'test (__session_starter_where) = flag' -s s -l stop-signal -x -d 'the signal --grace sends first'
complete -c session-starter -n 'test (__session_starter_where) = flag' -l kill-budget -x -d 'then SIGKILL for up to D, or exit 125'
complete -c session-starter -n 'test (__session_starter_where) = flag' -l containment -x -d 'group, cgroup or auto'
complete -c session-starter -n 'test (__session_starter_where) = flag' -l max-tasks -x -d 'at most N tasks live, threads included'
complete -c session-starter -n 'test (__session_starter_where) = flag' -l max-memory -x -d 'at most SIZE of memory (512M, 2G), no swap'
complete -c session-starter -n 'test (__session_starter_where) = flag' -l max-swap -x -d 'with --max-memory, at most SIZE of swap'
complete -c session-starter -n 'test (__session_starter_where) = flag' -l max-cpu -x -d 'at most CPUS of CPU time (0.5, 50%, 2)'
complete -c session-starter -n 'test (__session_starter_where) = flag' -l call-limits -x -d 'limits contained calls set: tasks,memory,cpu'
complete -c session-starter -n 'test (__session_starter_where) = flag' -l cgroup-parent -x -d 'make the session cgroup in cgroup v2 DIR'
complete -c session-starter -n 'test (__session_starter_where) = flag' -l containers -d 'PROGRAM is docker or podman run: end it too'
complete -c session-starter -n 'test (__session_starter_where) = flag' -l no-mark -d 'leave the session mark out of the environment'
complete -c session-starter -n 'test (__session_starter_where) = flag' -l release-on-exit -d 'a nested call: leave what the Engine left'
complete -c session-starter -n 'test (__session_starter_where) = flag' -l ack -d 'write the ack line once contained'
complete -c session-starter -n 'test (__session_starter_where) = flag' -l status-fd -x -d 'write JSON records to descriptor N'
complete -c session-starter -n 'test (__session_starter_where) = flag' -l log-level -x -d 'debug, info, warn, error or disabled'
complete -c session-starter -n 'test (__session_starter_where) = flag' -l log-format -x -d 'auto, json or console'
complete -c session-starter -n 'test (__session_starter_where) = flag' -l reclaim -d 'end what SIGKILLed sessions left running'
complete -c session-starter -n 'test (__session_starter_where) = flag' -l dry-run -d 'with --reclaim: list, and end nothing'
complete -c session-starter -n 'test (__session_starter_where) = flag' -l end-released -x -d 'end what call ID left with --release-on-exit'
complete -c session-starter -n 'test (__session_starter_where) = flag' -l explain -d 'print the containment mode here, and why'
complete -c session-starter -n 'test (__session_starter_where) = flag' -l version -d 'print the version and exit'
complete -c session-starter -n 'test (__session_starter_where) = flag' -s h -l help -d 'print this help and exit'
