#!/usr/bin/env bash
# A short demo session. The Engine (sh -c …) starts a background
# `sleep 300`, prints a line and exits 3. session-starter must exit 3 too,
# and no process of the Engine's group may be left: the sleep is ended
# with the session, not 300 s later.
#
# The sleep is tagged by its path: it is run through a symlink in a private
# temporary directory, so its command line in ps names that directory and
# nothing else on the machine does. The script never uses pkill or killall:
# if it finds a tagged process left over, it reports it, SIGKILLs exactly
# those PIDs and fails.
#
# Usage: scripts/demo.sh   (after make build; make demo does both)
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
bin=${SESSION_STARTER_BIN:-bin/session-starter}
if [[ ! -x $bin ]]; then
	echo "demo: $bin not found; run make build first" >&2
	exit 1
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/session-starter-demo.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
tagged_sleep=$tmp/sleep
ln -s "$(command -v sleep)" "$tagged_sleep"

# Lists the PIDs of processes whose command line holds the tag. ps is run
# once into a variable and searched in bash, so no grep of our own can
# match its own pattern.
tagged_pids() {
	local table pid args
	table=$(ps -e -ww -o pid= -o args=)
	while read -r pid args; do
		if [[ $args == *"$tagged_sleep"* ]]; then
			echo "$pid"
		fi
	done <<<"$table"
}

echo "demo: running"
echo "  $bin --ack -- sh -c '\"\$0\" 300 & echo …; exit 3' $tagged_sleep"
echo

# The Engine's script is single-quoted on purpose: $0 and $! are the
# Engine's, expanded by sh, not by this script.
# shellcheck disable=SC2016
engine='"$0" 300 &
echo "engine: started a background sleep 300 as pid $!"
echo "engine: exiting with status 3; the sleep is still running"
exit 3'

# timeout is only a bound for a broken build: a working session-starter
# returns as soon as the Engine has exited and its group is empty. Its
# output goes to a file, not a pipe, so that a leaked sleep holding the
# descriptor could not keep this script waiting.
status=0
timeout --kill-after=5 60 "$bin" --ack -- sh -c "$engine" "$tagged_sleep" \
	>"$tmp/stdout" || status=$?

echo "demo: session-starter's stdout (the ack line first):"
sed 's/^/  | /' "$tmp/stdout"
echo "demo: session-starter exited with status $status"

failed=0
if [[ $status -ne 3 ]]; then
	echo "demo: FAIL: wanted exit status 3, the Engine's" >&2
	failed=1
fi
if ! head -n 1 "$tmp/stdout" | grep -q '^{"session_containment":1,'; then
	echo "demo: FAIL: the first line of stdout is not the ack line" >&2
	failed=1
fi

mapfile -t left < <(tagged_pids)
if [[ ${#left[@]} -gt 0 ]]; then
	echo "demo: FAIL: left over after the session: ${left[*]}" >&2
	ps -ww -o pid,pgid,args -p "$(
		IFS=,
		echo "${left[*]}"
	)" >&2 || true
	kill -KILL "${left[@]}" 2>/dev/null || true
	failed=1
else
	echo "demo: no process tagged $tagged_sleep is left: the sleep 300 ended with the session"
fi

if [[ $failed -ne 0 ]]; then
	exit 1
fi
echo "demo: OK"
