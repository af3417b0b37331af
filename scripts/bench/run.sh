#!/usr/bin/env bash
# scripts/bench/run.sh: the benchmark report, printed as one
# markdown table (machine, kernel, date, then median and p99 per row).
#
#   a. start-up: session-starter -- /bin/true against /bin/true, tini, dumb-init
#   b. reaction: each trigger to the last process of a 100-process tree gone,
#      and to session-starter's first kill syscall (perf, where it works)
#   c. ending 100, 1,000 and 10,000 sleeping processes against a bare killpg;
#      a bounded fork storm
#   d. idle RSS and wake-ups of the starter and the guard
#   e. 500 sessions at once: start latency, failures, PSS, threads and
#      wake-ups per idle session
#   f. contained calls (starter/contain): /bin/true against a plain
#      exec.Command, and Kill of a 100-process call, in group and cgroup mode
#
# Run it with `make bench`. Knobs (environment):
#   BENCH_RUNS=200        runs per row of a, b and the 100-process end (>= 200)
#   BENCH_END_RUNS=30     runs of the 1,000-process end (each of two methods)
#   BENCH_BIG_RUNS=5      runs of the 10,000-process end (0 skips the row)
#   BENCH_STORM_RUNS=20   runs of the fork storm
#   BENCH_IDLE=10s        idle window; BENCH_IDLE_LONG=1 adds the 120 s window
#   BENCH_MANY=500        sessions at once in e (0 skips the row)
#   BENCH_GROUP_RUNS=30   runs of the group-mode ends of c (100 and 1,000)
#   BENCH_OUT=FILE        also write the table to FILE
#
# It installs tini, dumb-init (and gcc, linux-perf) with apt-get when they
# are missing. Every process it starts is in a tree it created; the harness
# (scripts/bench/harness) is a subreaper that reaps them, and every helper
# process carries an alarm (tree.c: 600 s, storm.c: 10 s).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/../.."

RUNS=${BENCH_RUNS:-200}
END_RUNS=${BENCH_END_RUNS:-30}
BIG_RUNS=${BENCH_BIG_RUNS:-5}
STORM_RUNS=${BENCH_STORM_RUNS:-20}
IDLE=${BENCH_IDLE:-10s}
MANY=${BENCH_MANY:-500}
GROUP_RUNS=${BENCH_GROUP_RUNS:-30}
GO=${GO:-go}
BIN=bin/session-starter

work=$(mktemp -d /tmp/session-starter-bench.XXXXXX)
cleanup() {
	rm -rf -- "$work"
}
trap cleanup EXIT

log() { printf 'bench: %s\n' "$*" >&2; }

apt_install() {
	local sudo=()
	if [ "$(id -u)" -ne 0 ]; then
		sudo=(sudo)
	fi
	log "installing $* with apt-get"
	if ! "${sudo[@]}" apt-get install -y -qq "$@" >"$work/apt.log" 2>&1; then
		"${sudo[@]}" apt-get update -qq >>"$work/apt.log" 2>&1 || true
		"${sudo[@]}" apt-get install -y -qq "$@" >>"$work/apt.log" 2>&1
	fi
}

# Tools.
missing=()
command -v tini >/dev/null 2>&1 || missing+=(tini)
command -v dumb-init >/dev/null 2>&1 || missing+=(dumb-init)
command -v cc >/dev/null 2>&1 || missing+=(gcc)
if [ ${#missing[@]} -gt 0 ]; then
	apt_install "${missing[@]}"
fi
have_perf=0
if ! command -v perf >/dev/null 2>&1; then
	apt_install linux-perf || log "linux-perf not installed: the first-kill rows are skipped"
fi
if command -v perf >/dev/null 2>&1 &&
	perf record -q -k mono -a -e syscalls:sys_enter_pidfd_send_signal -o "$work/probe.data" -- true >/dev/null 2>&1; then
	have_perf=1
else
	log "perf cannot record syscall tracepoints here: the first-kill rows are skipped"
fi

# Headroom for the big trees: pid_max, processes already running, and
# descriptors (the harness holds a pidfd of every member).
pid_max=$(cat /proc/sys/kernel/pid_max)
procs=(/proc/[0-9]*)
running=${#procs[@]}
nofile=$(ulimit -Hn)
big=10000
if [ "$BIG_RUNS" -gt 0 ] && { [ $((pid_max - running)) -lt $((big + 5000)) ] || { [ "$nofile" != unlimited ] && [ "$nofile" -lt $((big + 1000)) ]; }; }; then
	log "pid_max $pid_max with $running processes running, nofile $nofile: the $big-process row is skipped"
	BIG_RUNS=0
fi
# Each idle session of e holds about 12 tasks (threads of the starter and
# the guard, the Engine).
if [ "$MANY" -gt 0 ] && [ $((pid_max - running)) -lt $((MANY * 12 + 5000)) ]; then
	log "pid_max $pid_max with $running processes running: the $MANY-session row is skipped"
	MANY=0
fi

# Build.
log "building"
make --no-print-directory build >/dev/null
CGO_ENABLED=0 "$GO" build -o "$work/harness" ./scripts/bench/harness
cc -O2 -Wall -o "$work/tree" scripts/bench/tree.c
cc -O2 -Wall -o "$work/storm" scripts/bench/storm.c
h="$work/harness"
out="$work/results.tsv"
: >"$out"

log "a. start-up, $RUNS runs each"
"$h" startup -n "$RUNS" -w 20 /bin/true "$BIN -- /bin/true" "tini -s -- /bin/true" "dumb-init /bin/true" >>"$out"

log "b. reaction, $RUNS runs per trigger"
react_all() {
	local t
	for t in exit parent control sigterm; do
		"$h" react -bin "$BIN" -tree "$work/tree" -size 100 -n "$RUNS" -trigger "$t" -marks "$work/marks"
	done
}
if [ "$have_perf" -eq 1 ]; then
	perf record -q -k mono -a -e syscalls:sys_enter_pidfd_send_signal -e syscalls:sys_enter_kill \
		-o "$work/perf.data" -- bash -c "$(declare -f react_all); h='$h' BIN='$BIN' work='$work' RUNS='$RUNS' react_all" \
		>>"$out" 2>"$work/perf.log"
	perf script -i "$work/perf.data" -F comm,pid,time,trace >"$work/perf.txt" 2>/dev/null
	"$h" firstkill -marks "$work/marks" -perf "$work/perf.txt" >>"$out"
else
	react_all >>"$out"
fi

log "c. ending the 100-process tree, $RUNS runs of each method"
"$h" end -bin "$BIN" -tree "$work/tree" -size 100 -n "$RUNS" >>"$out"
log "c. ending 1000 processes, $END_RUNS runs of each method"
"$h" end -bin "$BIN" -tree "$work/tree" -size 1000 -n "$END_RUNS" >>"$out"
if [ "$BIG_RUNS" -gt 0 ]; then
	log "c. ending $big processes, $BIG_RUNS runs of each method"
	"$h" end -bin "$BIN" -tree "$work/tree" -size "$big" -n "$BIG_RUNS" >>"$out"
fi
if [ "$GROUP_RUNS" -gt 0 ]; then
	for size in 100 1000; do
		log "c. ending $size processes in group mode, $GROUP_RUNS runs of each method"
		"$h" end -bin "$BIN" -tree "$work/tree" -size "$size" -n "$GROUP_RUNS" -containment group >>"$out"
	done
fi
log "c. fork storm, $STORM_RUNS runs of each method"
"$h" storm -bin "$BIN" -storm "$work/storm" -max 2000 -interval 20ms -after 150ms -n "$STORM_RUNS" >>"$out"

log "d. idle $IDLE"
"$h" idle -bin "$BIN" -tree "$work/tree" -d "$IDLE" >>"$out"
if [ "${BENCH_IDLE_LONG:-0}" = 1 ]; then
	log "d. idle 120s"
	"$h" idle -bin "$BIN" -tree "$work/tree" -d 120s >>"$out"
fi

if [ "$MANY" -gt 0 ]; then
	log "e. $MANY sessions at once"
	"$h" many -bin "$BIN" -tree "$work/tree" -n "$MANY" -d 5s >>"$out"
fi

log "f. contained calls, $RUNS runs each, in group and in cgroup mode"
"$h" calls -tree "$work/tree" -n "$RUNS" >>"$out"
if ! "$BIN" --containment cgroup -- "$h" calls -tree "$work/tree" -n "$RUNS" >>"$out"; then
	log "f. no cgroup mode here: the cgroup rows are missing"
fi

# The table.
model=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)
{
	printf 'Machine: %s cores, %s; kernel %s; %s; %s; session-starter %s\n\n' \
		"$(nproc)" "$model" "$(uname -r)" "$(date -u '+%Y-%m-%d %H:%M UTC')" \
		"$("$GO" env GOVERSION)" "$("$BIN" --version | cut -d' ' -f2-)"
	printf '| | measure | runs | median (ms) | p99 (ms) | note |\n'
	printf '|---|---|---:|---:|---:|---|\n'
	sort -s -t "$(printf '\t')" -k1,1 "$out" |
		awk -F '\t' '{ printf "| %s | %s | %s | %s | %s | %s |\n", $1, $2, $3, $4, $5, $6 }'
} >"$work/table.md"
cat "$work/table.md"
if [ -n "${BENCH_OUT:-}" ]; then
	cp "$work/table.md" "$BENCH_OUT"
fi
