#!/usr/bin/env bash
# scripts/bench/limits.sh: the start-up of a session with limits against
# one without, in the same run: session-starter -- /bin/true, and the same
# with --max-tasks, --max-memory and --max-cpu (three writes and their
# reads back). This host's cgroup v2 has no pids, memory or cpu controller,
# so it runs in the VM of scripts/vm/run (a real Debian kernel with a pure
# cgroup v2, under QEMU: TCG where the CPU offers no KVM, so every figure
# is many times this host's; compare the rows with each other only).
#
#   scripts/bench/limits.sh [RUNS]     (default 100 runs each, 10 warm-up)
#
# The harness's startup mode (scripts/bench/harness) prints one markdown
# row per command: median and p99 wall time, and CPU time. Record a run in
# scripts/bench/NOTEBOOK.md with the machine and the date.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
GO=${GO:-go}
runs=${1:-100}
work=$(mktemp -d "${TMPDIR:-/tmp}/session-starter-bench-limits.XXXXXX")
trap 'rm -rf "$work"' EXIT
CGO_ENABLED=0 "$GO" build -o "$work/session-starter" ./cmd/session-starter
CGO_ENABLED=0 "$GO" build -o "$work/harness" ./scripts/bench/harness
bin=$work/session-starter
# The guest's shell runs in the root cgroup, which may enable controllers
# beside its processes: session-starter makes its session cgroups there
# and moves nothing, as it would under a delegated --cgroup-parent.
scripts/vm/run --timeout 1200 -- "$work/harness" startup -n "$runs" -w 10 \
	"$bin -- /bin/true" \
	"$bin --max-tasks 1000 --max-memory 1G --max-cpu 2 -- /bin/true"
