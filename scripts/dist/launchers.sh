#!/usr/bin/env bash
# The tests of the launch APIs of the npm package and of the Python module,
# against the real binary:
#
#   node --test scripts/dist/npm/test/*.test.js   launch(), the records, the
#       official MCP TypeScript SDK's client talking to a server launched
#       through launch() and the stdio helpers, the official ACP SDK's
#       client through launchAgent() (ended by close, SIGTERM, SIGKILL),
#       tsc --strict of the types, and the package README's examples run
#       as printed
#   python -m unittest (scripts/dist/python/tests)  launch(), launch_async(),
#       the records, call(), the MCP helpers (against a fake MCP SDK, on
#       anyio), a JSON-RPC stdio client and server on the standard
#       library (PyPI is not reachable here, so the MCP Python SDK is not
#       used) ended by close, SIGTERM, SIGKILL, and the README's examples
#       run as printed (the MCP one compiled only)
#
# Both parse the fixtures of starter/launch/testdata/records, as the Go
# tests do. Every test checks that no process of its sessions is left.
#
# Offline: the devDependencies of scripts/dist/npm/test (the MCP and ACP
# SDKs, TypeScript, @types/node, pinned with their dependencies in its
# package-lock.json) are installed with npm ci --offline from the npm cache
# that `make dist-deps` fills (that needs the npm registry, once).
#
# Usage:
#   scripts/dist/launchers.sh deps
#       fills the npm cache with the devDependencies (make dist-deps: the
#       one step that needs the npm registry); then exits
#   scripts/dist/launchers.sh installed NPM_PROJECT VENV
#       the packages as installed: NPM_PROJECT/node_modules holds
#       session-starter and its platform package, VENV the wheel (make
#       dist-check); the devDependencies must be in the cache
#   scripts/dist/launchers.sh source BINARY
#       the source tree's packages with BINARY as SESSION_STARTER_BINARY
#       (make test-launch); without the devDependencies in the cache,
#       the tests that need them skip, saying so (under CI=true, they fail)
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/../.."
# shellcheck source=scripts/dist/lib.sh
source scripts/dist/lib.sh

need node nodejs
need npm
need python3

repo=$PWD
tests_js=$repo/scripts/dist/npm/test
tests_py=$repo/scripts/dist/python/tests
cache=$(dev_npm_cache)

mode=${1:-}
case $mode in
deps)
	[[ $# -eq 1 ]] || die "usage: $0 deps"
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/session-starter-deps.XXXXXX")
	trap 'rm -rf "$tmp"' EXIT
	cp "$tests_js/package.json" "$tests_js/package-lock.json" "$tmp/"
	# The lockfile names each package's tarball and its integrity: npm ci
	# fetches exactly those, and verifies them.
	(cd "$tmp" && npm_config_update_notifier=false npm ci --prefer-offline --ignore-scripts --no-audit --no-fund \
		--cache "$cache" >"$tmp/npm-ci.log" 2>&1) || {
		sed 's/^/  | /' "$tmp/npm-ci.log" >&2
		die "npm ci of $tests_js/package-lock.json into the cache $cache (needs the npm registry)"
	}
	echo "launchers: the devDependencies of $tests_js are in the npm cache $cache"
	exit 0
	;;
installed)
	[[ $# -eq 3 ]] || die "usage: $0 installed NPM_PROJECT VENV"
	project=$(cd "$2" && pwd)
	venv=$(cd "$3" && pwd)
	[[ -d $project/node_modules/session-starter ]] || die "$project/node_modules has no session-starter"
	[[ -x $venv/bin/python ]] || die "$venv has no bin/python"
	;;
source)
	[[ $# -eq 2 ]] || die "usage: $0 source BINARY"
	[[ -x $2 ]] || die "$2: not an executable (make build writes bin/session-starter)"
	binary=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
	;;
*)
	die "usage: $0 deps | installed NPM_PROJECT VENV | source BINARY"
	;;
esac

tmp=$(mktemp -d "${TMPDIR:-/tmp}/session-starter-launchers.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# The devDependencies, from the cache only: a registry on a port that
# refuses, so that nothing can come from the network.
deps=$tmp/dev-deps
mkdir "$deps"
cp "$tests_js/package.json" "$tests_js/package-lock.json" "$deps/"
have_deps=true
if ! (cd "$deps" && npm_config_update_notifier=false npm ci --offline --ignore-scripts --no-audit --no-fund \
	--cache "$cache" --registry http://127.0.0.1:9/ >"$tmp/npm-ci.log" 2>&1); then
	have_deps=false
	msg="the launch API tests' devDependencies (the MCP and ACP TypeScript SDKs, TypeScript) are not in the npm cache $cache: run make dist-deps first (it needs the npm registry)"
	if [[ $mode == installed || ${CI:-} == true ]]; then
		sed 's/^/  | /' "$tmp/npm-ci.log" >&2
		die "$msg"
	fi
	echo "launchers: warning: $msg; the tests that need them skip" >&2
fi

# elapsed prints the seconds since $1 (date +%s.%N).
elapsed() {
	awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }'
}

# env's options (-u) come before its assignments.
records=SESSION_STARTER_RECORDS=$repo/starter/launch/testdata/records
if [[ $mode == installed ]]; then
	# The installed package is found through NODE_PATH (the tests live
	# here, not in the project), the devDependencies too; the helpers
	# check that the package came from the project.
	js_env=(env -u SESSION_STARTER_BINARY "$records" "NODE_PATH=$project/node_modules:$deps/node_modules"
		"SESSION_STARTER_EXPECT_PACKAGE=$project/node_modules/session-starter" SESSION_STARTER_REQUIRE_SDK=1)
	py_env=(env -u SESSION_STARTER_BINARY -u PYTHONPATH "$records" "SESSION_STARTER_EXPECT_INSTALLED=$venv")
	python=$venv/bin/python
else
	js_env=(env "$records" "NODE_PATH=$repo/scripts/dist/npm:$deps/node_modules" "SESSION_STARTER_BINARY=$binary")
	$have_deps && js_env+=(SESSION_STARTER_REQUIRE_SDK=1)
	py_env=(env "$records" "PYTHONPATH=$repo/scripts/dist/python" "SESSION_STARTER_BINARY=$binary")
	python=python3
fi

start=$(date +%s.%N)
# Files, not the directory: node --test would run every .js under a test/
# directory, the helpers and the MCP server included.
"${js_env[@]}" node --test "$tests_js"/*.test.js >"$tmp/js.log" 2>&1 || {
	sed 's/^/  | /' "$tmp/js.log" >&2
	die "the npm package's launch API tests failed"
}
js_time=$(elapsed "$start")
js_summary=$(grep -E '^# (pass|fail|skipped) ' "$tmp/js.log" | sed 's/^# //' | paste -sd, -)
echo "launchers: ok: node --test ($mode package): $js_summary in ${js_time}s"
if grep -q '^# skipped [1-9]' "$tmp/js.log"; then
	grep -E '# SKIP' "$tmp/js.log" | sed 's/^/  | /'
fi

start=$(date +%s.%N)
(cd "$tests_py" && "${py_env[@]}" "$python" -m unittest discover -s . -t . >"$tmp/py.log" 2>&1) || {
	sed 's/^/  | /' "$tmp/py.log" >&2
	die "the Python module's launch API tests failed"
}
py_time=$(elapsed "$start")
echo "launchers: ok: python -m unittest ($mode module, $("$python" -c 'import sys; print(sys.version.split()[0])')): $(grep -E '^Ran ' "$tmp/py.log") in ${py_time}s"
