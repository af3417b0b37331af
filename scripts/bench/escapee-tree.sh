#!/usr/bin/env bash
# scripts/bench/escapee-tree.sh [BINARY]: a tree of 2,047 escapees (10
# levels, every process in a session of its own, so each generation is
# adopted only when the one above it dies), ended in group mode with
# --kill-budget 3s when the Engine exits 7. Prints the starter's exit
# status, the time from the Engine's exit to the starter's, the tasks left
# and the session end record. Runs as root, inside a cgroup v1 pids cgroup
# capped at 2,300 tasks (the bound), whose processes it kills afterwards;
# each process of the tree also has an alarm of 60 s.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/../.."
bin=${1:-}
if [[ -z $bin ]]; then
	bin=$(mktemp /tmp/session-starter-tree.XXXXXX)
	go build -o "$bin" ./cmd/session-starter
fi
command -v perl >/dev/null || { echo "needs perl" >&2; exit 1; }
cg=/sys/fs/cgroup/pids/session-starter-tree-$$
mkdir "$cg"
echo 2300 >"$cg/pids.max"
err=$(mktemp /tmp/session-starter-tree-err.XXXXXX)
cleanup() {
	while read -r p; do kill -9 "$p" 2>/dev/null || true; done <"$cg/cgroup.procs"
	while [[ $(cat "$cg/pids.current") != 0 ]]; do sleep 0.1; done
	rmdir "$cg"
	rm -f -- "$err"
}
trap cleanup EXIT
# shellcheck disable=SC2016 # a Perl program, not shell
tree='use POSIX (); $| = 1;
sub grow { my $d = shift; POSIX::setsid(); alarm 60;
  if ($d > 0) { for (1..2) { my $p = fork; if (defined $p && $p == 0) { grow($d-1) } } }
  sleep 60; POSIX::_exit(0) }
my $p = fork; if (defined $p && $p == 0) { grow(10) } sleep 3; print "grown\n"; my $x = <STDIN>; exit 7;'
coproc S {
	echo "$BASHPID" >"$cg/cgroup.procs"
	exec "$bin" --containment group --kill-budget 3s --log-level info --log-format json -- perl -e "$tree" 2>"$err"
}
read -r -t 30 line <&"${S[0]}"
echo "Engine: $line; tasks: $(cat "$cg/pids.current")"
start=$(date +%s%N)
echo x >&"${S[1]}"
rc=0
wait "$S_PID" || rc=$?
end=$(date +%s%N)
echo "exit $rc after $(((end - start) / 1000000)) ms; tasks left: $(cat "$cg/pids.current")"
grep '"session end"' "$err" || cat "$err"
