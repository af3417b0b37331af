# bash completion for session-starter, generated from the flags' help
# (cmd/session-starter/flags.go) by
#   go test ./cmd/session-starter -run TestShellDocsUpToDate -update
# bash 3.2 (macOS) too: no mapfile; compopt is bash 4's.

_session_starter() {
	local cur=${COMP_WORDS[COMP_CWORD]} i=1 program= w
	COMPREPLY=()
	# The words before the current one: flags and their values, then "--"
	# or PROGRAM. bash splits --flag=value at "=" into three words.
	while ((i < COMP_CWORD)); do
		case ${COMP_WORDS[i]} in
		--)
			program=$((i + 1))
			break
			;;
		--parent-pid | --stdin-grace | --control-fd | --timeout | --grace | --stop-signal | --kill-budget | --containment | --max-tasks | --max-memory | --max-swap | --max-cpu | --call-limits | --cgroup-parent | --status-fd | --log-level | --log-format | --end-released | -k | -s)
			[[ ${COMP_WORDS[i + 1]-} == = ]] && ((i++))
			((i++))
			;;
		=) ((i++)) ;;
		-*) ;;
		*)
			program=$i
			break
			;;
		esac
		((i++))
	done
	if [[ -z $program ]]; then
		# A flag's value: nothing to offer.
		((i > COMP_CWORD)) || [[ $cur == = ]] && return 0
		if [[ $cur == -* ]]; then
			while IFS= read -r w; do COMPREPLY+=("$w"); done < <(compgen -W '--stdio --watch-parent --parent-pid --watch-stdin --stdin-grace --control-fd --timeout --grace --stop-signal --kill-budget --containment --max-tasks --max-memory --max-swap --max-cpu --call-limits --cgroup-parent --containers --no-mark --release-on-exit --ack --status-fd --log-level --log-format --reclaim --dry-run --end-released --explain --version --help -k -s -h' -- "$cur")
			return 0
		fi
		program=$COMP_CWORD
	fi
	if declare -F _command_offset >/dev/null; then
		_command_offset "$program"
	elif ((program == COMP_CWORD)); then
		while IFS= read -r w; do COMPREPLY+=("$w"); done < <(compgen -c -- "$cur")
	else
		compopt -o default 2>/dev/null
	fi
}
complete -F _session_starter session-starter
