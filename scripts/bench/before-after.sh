#!/usr/bin/env bash
# scripts/bench/before-after.sh REV: the rows of `make bench` that a change
# moves, for the binary of REV against the working tree's, side by side in
# one run (round robin where the harness allows), so that the machine's
# noise falls on both alike:
#   start-up (both binaries, default and group mode, beside the Go floor:
#   a Go program that runs the command with os/exec in a group of its own,
#   scripts/bench/floor; tini, dumb-init),
#   the end of 100 and 1,000 members in cgroup and group mode,
#   idle threads and RSS, and 500 sessions at once.
# Needs tini, dumb-init and cc (make bench installs them). About 5 minutes.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/../.."
rev=${1:?usage: scripts/bench/before-after.sh REV}
GO=${GO:-go}

work=$(mktemp -d /tmp/session-starter-ab.XXXXXX)
trap 'rm -rf -- "$work"' EXIT

mkdir "$work/src"
git archive "$rev" | tar -x -C "$work/src"
(cd "$work/src" && CGO_ENABLED=0 "$GO" build -trimpath -o "$work/before" ./cmd/session-starter)
make --no-print-directory build >/dev/null
cp bin/session-starter "$work/after"
CGO_ENABLED=0 "$GO" build -o "$work/harness" ./scripts/bench/harness
CGO_ENABLED=0 "$GO" build -trimpath -o "$work/floor" ./scripts/bench/floor
cc -O2 -Wall -o "$work/tree" scripts/bench/tree.c
h="$work/harness"

echo "# before: $rev; after: the working tree ($(git describe --always --dirty))"
"$h" startup -n 200 -w 20 /bin/true "$work/floor /bin/true" "$work/before -- /bin/true" "$work/after -- /bin/true" \
	"$work/before --containment group -- /bin/true" "$work/after --containment group -- /bin/true" \
	"tini -s -- /bin/true" "dumb-init /bin/true"
for b in before after; do
	for mode in cgroup group; do
		echo "# end, $b, $mode mode"
		"$h" end -bin "$work/$b" -tree "$work/tree" -size 100 -n 50 -containment "$mode"
		"$h" end -bin "$work/$b" -tree "$work/tree" -size 1000 -n 15 -containment "$mode"
	done
done
for b in before after; do
	echo "# idle and 500 sessions, $b"
	"$h" idle -bin "$work/$b" -tree "$work/tree" -d 5s
	"$h" many -bin "$work/$b" -tree "$work/tree" -n 500 -d 5s
done
