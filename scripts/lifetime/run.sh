#!/usr/bin/env bash
# The lifetime suite (make test-lifetime): the official MCP TypeScript
# client, the official MCP Go client, a Python client on the fake MCP
# Python SDK of scripts/dist/python/tests (the SDK is not installable
# here) and the official ACP TypeScript client, each through every
# integration of session-starter and bare, against the misbehaving stdio servers of
# fixtures/, ended by close(), SIGTERM and SIGKILL (cells.js says what
# passes). The MCP and ACP client configs of README.md and of the manual
# run as printed, under the same clients (recipes.test.js). Prints the
# table of what each cell left and how fast.
#
# Offline: the MCP and ACP TypeScript SDKs come from the npm cache that make
# dist-deps fills (the devDependencies of scripts/dist/npm/test), the Go
# SDK from the module cache or the module proxy; anyio, for the Python
# client, from python3 or Debian's python3-anyio.
#
# Usage:
#   scripts/lifetime/run.sh BINARY [NOTEBOOK]
#       runs the suite against the session-starter BINARY; with NOTEBOOK,
#       appends the table to it as a new dated section
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/../.."
# shellcheck source=scripts/dist/lib.sh
source scripts/dist/lib.sh

need node nodejs
need npm
# recipes.test.js runs each client config in a mount namespace of its own.
need unshare util-linux
unshare --mount true 2>/dev/null || die "unshare --mount failed: the recipes' cells need root (CAP_SYS_ADMIN)"

[[ $# -ge 1 && $# -le 2 ]] || die "usage: $0 BINARY [NOTEBOOK]"
[[ -x $1 ]] || die "$1: not an executable (make build writes bin/session-starter)"
binary=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
notebook=${2:-}
repo=$PWD
here=$repo/scripts/lifetime
tests_js=$repo/scripts/dist/npm/test
GO=${GO:-go}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/session-starter-lifetime.XXXXXX")
# Every cell's mark starts with the run's: should node die before a
# cell's own cleanup, what carries the run's marks is SIGKILLed by PID.
run=$$-$RANDOM$RANDOM
leftovers() {
	local p
	for p in /proc/[0-9]*; do
		if { tr '\0' '\n' <"$p/environ"; } 2>/dev/null | grep -q "^LIFETIME_MARK=lifetime-$run-"; then
			kill -KILL "${p#/proc/}" 2>/dev/null || true
		fi
	done
}
trap 'leftovers; rm -rf "$tmp"' EXIT

# The MCP SDK, from the cache only: a registry on a port that refuses.
mkdir "$tmp/deps"
cp "$tests_js/package.json" "$tests_js/package-lock.json" "$tmp/deps/"
(cd "$tmp/deps" && npm_config_update_notifier=false npm ci --offline --ignore-scripts --no-audit --no-fund \
	--cache "$(dev_npm_cache)" --registry http://127.0.0.1:9/ >"$tmp/npm-ci.log" 2>&1) || {
	sed 's/^/  | /' "$tmp/npm-ci.log" >&2
	die "the MCP TypeScript SDK is not in the npm cache $(dev_npm_cache): run make dist-deps first (it needs the npm registry)"
}

(cd "$here/goclient" && "$GO" build -o "$tmp/goclient" .) || die "building the Go client (scripts/lifetime/goclient)"

# The Python client's fake SDK runs on anyio, and recipes.test.js reads
# Codex's config.toml with tomllib (Python 3.11): the first python3 that
# has both.
python=
for p in python3 /usr/bin/python3; do
	if command -v "$p" >/dev/null && "$p" -c 'import anyio, tomllib' 2>/dev/null; then
		python=$(command -v "$p")
		break
	fi
done
[[ -n $python ]] || die "no python3 imports anyio and tomllib (Debian's python3-anyio, on Python 3.11 or later, has them)"

start=$(date +%s.%N)
status=0
env "LIFETIME_RUN=$run" "NODE_PATH=$repo/scripts/dist/npm:$tmp/deps/node_modules" "SESSION_STARTER_BINARY=$binary" \
	"LIFETIME_GO_CLIENT=$tmp/goclient" "LIFETIME_PYTHON=$python" \
	"PYTHONPATH=$repo/scripts/dist/python:$repo/scripts/dist/python/tests" "LIFETIME_RESULTS=$tmp/results.jsonl" \
	node --test --test-concurrency=3 "$here"/*.test.js >"$tmp/test.log" 2>&1 || status=$?
took=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.0f", b - a }')
summary=$(grep -E '^# (pass|fail) ' "$tmp/test.log" | sed 's/^# //' | paste -sd, -)

[[ -s $tmp/results.jsonl ]] && node "$here/table.js" "$tmp/results.jsonl" >"$tmp/table.md"
if ((status != 0)); then
	sed 's/^/  | /' "$tmp/test.log" >&2
	[[ -f $tmp/table.md ]] && cat "$tmp/table.md" >&2
	die "the lifetime suite failed ($summary, ${took}s)"
fi
cat "$tmp/table.md"
echo "lifetime: ok: $summary in ${took}s"

if [[ -n $notebook ]]; then
	# Read before the notebook is appended to: it is in the tree.
	at=$(git rev-parse --short HEAD)
	git diff --quiet HEAD -- . || at+=" (with local changes)"
	{
		echo
		echo "## $(date -u +%Y-%m-%d): the lifetime suite"
		echo
		echo "\`make test-lifetime\` at $at:"
		echo "the official MCP TypeScript client (SDK $(node -p "require('$tmp/deps/node_modules/@modelcontextprotocol/sdk/package.json').version")),"
		echo "the official MCP Go client (go-sdk v1.8.0), a Python client on the fake MCP Python"
		echo "SDK of scripts/dist/python/tests and the official ACP client (SDK $(node -p "require('$tmp/deps/node_modules/@agentclientprotocol/sdk/package.json').version")),"
		echo "each a process of its own, three clients' cells at once, through"
		echo "each integration and bare, against four servers, ended by close(), SIGTERM and SIGKILL."
		echo "The rows of fixtures named as files are the client configs of README.md and the manual"
		echo "(recipe: run as printed, with their own --grace 2s, so counted at t0 + 5 s; bare: their"
		echo "command after --); their npx runs an npx-style wrapper whose server ignores EOF and"
		echo "whose tool call leaves a child and a setsid job."
		echo "A cell reads: processes of the session left at t0 + 4 s (the stdin grace 2 s,"
		echo "the grace 1 s, and 1 s) / time from t0 to none left (bare: \"never\" within the"
		echo "later of that and the client's exit). t0 is close()'s call or the client's signal."
		echo "The machine: $(nproc) cores, Linux $(uname -r), Node $(node --version), $("$GO" env GOVERSION), Python $("$python" -c 'import sys; print(sys.version.split()[0])'),"
		echo "load average $(cut -d' ' -f1 /proc/loadavg) at the end; the suite took ${took} s."
		echo
		cat "$tmp/table.md"
	} >>"$notebook"
	echo "lifetime: the table is appended to $notebook"
fi
