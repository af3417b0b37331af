#!/usr/bin/env bash
# make dist-check: installs each artifact of dist/ (DIST_DIR) that can be
# installed here, offline, into a temporary place, and runs a real session
# through it:
#
#   SHA256SUMS   sha256sum -c, and every file of dist/ listed; a binary one
#                byte longer must be refused
#   binary       dist/session-starter-V-linux-ARCH, run as it is
#   npm          the main tarball and this platform's, npm install'ed into a
#                fresh project with --offline --ignore-scripts and a registry
#                that does not answer; run through the bin shim and through
#                binaryPath(); signals to the shim, --control-fd and
#                --status-fd through it; a faked platform gets one error
#                naming it; every platform tarball holds its release binary
#   wheel        this platform's wheel, pip install --no-index'ed into a
#                python3 -m venv; run from the venv's bin, binary_path() and
#                python -m session_starter; a faked platform gets one error
#                naming it; pip refuses another platform's wheel; every
#                wheel's RECORD, tags and binary (scripts/dist/wheelcheck.py)
#   .deb         dpkg-deb -x into a directory, its control fields, its
#                binary run; its man page rendered by man -l without a
#                warning, its bash completion sourced into bash, which
#                completes --wat to the --watch- flags, its fish completion
#                (complete -C) the same, its zsh completion read by zsh -n,
#                its README the tree's
#   man page and completions
#                dist/man and dist/completions are what the .deb holds;
#                npm's man field and file, and the wheel's share/man (man
#                finds it through the venv's bin on PATH) and bash
#                completion are the same page and completion
#   Homebrew     ruby -c of the formula, its url, sha256 and version; each
#                file its install names is in the source archive; the
#                source archive built as the formula builds it (offline,
#                from the module cache), byte for byte the release binary,
#                and the formula's test run
#   launch APIs  the npm package's and the Python module's test suites
#                (scripts/dist/launchers.sh) against the package and the
#                wheel installed above: launch() and the records, the MCP
#                TypeScript SDK's client, a JSON-RPC stdio client and
#                server; their npm devDependencies come from the cache that
#                make dist-deps fills, offline
#
# Each session is session-starter -- sh -c 'sleep 300 & …; exit 3': the
# status must be 3 and no process of the session may be left. The session's
# processes are told apart by a marker in their environment that nothing
# else on the machine carries; any found left are reported, SIGKILLed by PID
# and the check fails. Nothing is killed by name.
#
# Every binary installed is compared with the release binary's line in
# SHA256SUMS; one that differs is refused (tested with a copy one byte
# longer).
#
# Usage: scripts/dist/check.sh   (make dist-check, after make dist)
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/../.."
# shellcheck source=scripts/dist/lib.sh
source scripts/dist/lib.sh

GO=${GO:-go}
out=${DIST_DIR:-dist}

need node nodejs
need npm
need python3
need dpkg-deb dpkg
need sha256sum coreutils
need ruby
need "$GO" golang
need timeout coreutils
need man man-db
need groff groff-base
need zsh
need fish

version=$(release_version)
commit=$(release_commit)
pyversion=$(pep440_version "$version")
debversion=$(deb_version "$version")
[[ -f $out/SHA256SUMS ]] || die "$out/SHA256SUMS not found: run make dist first"
abs_out=$(cd "$out" && pwd)

case $(uname -s)/$(uname -m) in
Linux/x86_64) goarch=amd64 node_arch=x64 other_node_arch=arm64 wheel_machine=x86_64 ;;
Linux/aarch64) goarch=arm64 node_arch=arm64 other_node_arch=x64 wheel_machine=aarch64 ;;
*) die "runs on Linux on x86_64 or aarch64, not $(uname -s)/$(uname -m)" ;;
esac
release_bin=$abs_out/session-starter-$version-linux-$goarch

tmp=$(mktemp -d "${TMPDIR:-/tmp}/session-starter-dist-check.XXXXXX")
# The marker: in the environment of every process of the sessions this
# script runs, and nowhere else. Never exported into this shell's own
# environment, so that grep and ps do not carry it.
marker="DIST_CHECK_MARK=$(basename "$tmp")-$$"

# marked_pids prints the PIDs of live processes whose environment holds the
# marker. One grep reads every /proc/PID/environ; processes that end
# meanwhile are skipped.
marked_pids() {
	local f
	while read -r f; do
		f=${f#/proc/}
		echo "${f%/environ}"
	done < <(grep -lzxF -- "$marker" /proc/[0-9]*/environ 2>/dev/null || true)
}

# end_marked SIGKILLs, by PID, whatever carries the marker; prints them.
end_marked() {
	local left
	mapfile -t left < <(marked_pids)
	if ((${#left[@]})); then
		ps -ww -o pid,pgid,args -p "$(
			IFS=,
			echo "${left[*]}"
		)" >&2 || true
		kill -KILL "${left[@]}" 2>/dev/null || true
		return 1
	fi
}

cleanup() {
	end_marked || echo "dist-check: ended the processes above, left by a failed check" >&2
	rm -rf "$tmp"
}
trap cleanup EXIT

fail() {
	echo "dist-check: FAIL: $*" >&2
	exit 1
}

ok() {
	echo "dist-check: ok: $*"
}

# The Engine of every session: a sleep left behind (its PID written to the
# file named by $0), then exit 3.
# shellcheck disable=SC2016 # expanded by the Engine's sh
leak_and_exit3='sleep 300 & echo "$!" >"$0"; exit 3'
# The Engine of the signal checks: a sleep left behind, then it waits.
# shellcheck disable=SC2016
leak_and_wait='sleep 300 & echo "$!" >"$0"; exec sleep 300'

# no_leftovers LABEL PIDFILE fails if a process of the session is left: the
# sleep whose PID the Engine wrote, or anything carrying the marker.
no_leftovers() {
	local label=$1 pidfile=$2 pid
	[[ -s $pidfile ]] || fail "$label: the Engine did not start its sleep"
	pid=$(<"$pidfile")
	if ! end_marked; then
		fail "$label: the processes above were left after the session (sleep was $pid)"
	fi
	SLEEP_PID=$pid
}

# session LABEL WANT ENGINE CMD... runs CMD... -- sh -c ENGINE PIDFILE with
# the marker, bounded by timeout (a working session ends as soon as the
# Engine exits), output to a file (a leaked sleep could hold a pipe open),
# and fails unless the status is WANT and nothing of the session is left.
session() {
	local label=$1 want=$2 engine=$3 status=0
	shift 3
	local pidfile="$tmp/$label.pid" log="$tmp/$label.log"
	rm -f "$pidfile"
	# The braces' stderr takes bash's own report of a command killed by a
	# signal ("Killed"); the status says it.
	{ timeout --kill-after=5 60 env "$marker" "$@" -- sh -c "$engine" "$pidfile" >"$log" 2>&1 </dev/null; } 2>/dev/null ||
		status=$?
	if [[ $status -ne $want ]]; then
		sed 's/^/  | /' "$log" >&2
		fail "$label: exit status $status, want $want"
	fi
	no_leftovers "$label" "$pidfile"
	ok "$label: exit status $status; the Engine's sleep 300 (pid $SLEEP_PID) ended with the session"
}

# signalled LABEL SIG WANT CMD... starts CMD... -- sh -c LEAK_AND_WAIT in
# the background, sends SIG to it (to CMD's own process, e.g. the npm shim)
# once the Engine has started, and fails unless it ends with status WANT
# and nothing of the session is left.
signalled() {
	local label=$1 sig=$2 want=$3 sub pid status i
	shift 3
	local pidfile="$tmp/$label.pid" log="$tmp/$label.log" cmdpid="$tmp/$label.cmdpid" statusfile="$tmp/$label.status"
	rm -f "$pidfile" "$cmdpid" "$statusfile"
	# CMD runs in a subshell that writes CMD's status to a file, so that
	# bash's report of a command killed by a signal ("Killed") goes to the
	# subshell's stderr, /dev/null. sh writes its PID first, which exec
	# hands on to env and then to CMD.
	(
		st=0
		sh -c 'echo "$$" >"$0"; exec "$@"' "$cmdpid" env "$marker" "$@" -- \
			sh -c "$leak_and_wait" "$pidfile" >"$log" 2>&1 </dev/null || st=$?
		echo "$st" >"$statusfile.tmp" && mv "$statusfile.tmp" "$statusfile"
	) 2>/dev/null &
	sub=$!
	# Polls for the Engine's PID file, then for CMD's status, each within
	# 20 s: bounds for a broken build (a start takes milliseconds, the end
	# without --grace as long), on a loaded machine. Past a bound CMD's
	# process is SIGKILLed and the session's leftovers are found by the
	# marker.
	for ((i = 0; i < 400; i++)); do
		[[ -s $pidfile ]] && break
		sleep 0.05
	done
	pid=$(<"$cmdpid")
	[[ -s $pidfile ]] || {
		kill -KILL "$pid" 2>/dev/null || true
		fail "$label: the Engine did not start within 20 s"
	}
	kill "-$sig" "$pid"
	for ((i = 0; i < 400; i++)); do
		[[ -s $statusfile ]] && break
		sleep 0.05
	done
	[[ -s $statusfile ]] || {
		kill -KILL "$pid" 2>/dev/null || true
		fail "$label: SIG$sig: CMD did not exit within 20 s"
	}
	wait "$sub"
	status=$(<"$statusfile")
	if [[ $status -ne $want ]]; then
		sed 's/^/  | /' "$log" >&2
		fail "$label: SIG$sig: exit status $status, want $want"
	fi
	no_leftovers "$label" "$pidfile"
	ok "$label: SIG$sig ended the session, exit status $status; nothing left"
}

# release_sum NAME prints the sha256 that SHA256SUMS lists for the file
# named NAME.
release_sum() {
	awk -v f="$1" '$2 == f { print $1 }' "$abs_out/SHA256SUMS"
}

# same_as_release LABEL FILE NAME refuses FILE unless its sha256 is the
# one SHA256SUMS lists for the release binary NAME.
same_as_release() {
	local label=$1 file=$2 name=$3 want got
	want=$(release_sum "$name")
	[[ -n $want ]] || fail "$label: SHA256SUMS does not list $name"
	got=$(sha256sum "$file" | cut -d' ' -f1)
	[[ $got == "$want" ]] || fail "$label: $file: sha256 $got, but SHA256SUMS has $want for $name: refused"
}

# says_version LABEL BINARY checks what BINARY --version prints.
says_version() {
	local got want goversion
	got=$("$2" --version)
	goversion=$("$GO" env GOVERSION)
	want="session-starter $version (commit $commit, $goversion, protocol "
	[[ $got == "$want"* ]] || fail "$1: --version printed '$got', want '$want…'"
}

echo "dist-check: session-starter $version from $out/, in $tmp"

# --- SHA256SUMS ---------------------------------------------------------

# SHA256SUMS names the files by their names alone, as the release's
# downloads sit side by side: they are checked so, through links in one
# directory.
mkdir "$tmp/flat"
find "$abs_out" -type f ! -name SHA256SUMS.sig -exec ln -s {} "$tmp/flat/" \;
verify_sums() {
	(cd "$1" && sha256sum --strict --quiet -c SHA256SUMS)
}
verify_sums "$tmp/flat" || fail "SHA256SUMS: the files above do not match: refused"
listed=$(awk '{ print $2 }' "$abs_out/SHA256SUMS" | LC_ALL=C sort)
present=$(find "$abs_out" -type f ! -name SHA256SUMS ! -name SHA256SUMS.sig -printf '%f\n' | LC_ALL=C sort)
[[ $listed == "$present" ]] || fail "SHA256SUMS does not list exactly the files of $out/: $(diff <(echo "$listed") <(echo "$present") | tr '\n' ' ')"
ok "SHA256SUMS: $(wc -l <"$abs_out/SHA256SUMS") files, all listed, all match"

mkdir "$tmp/tampered"
cp "$abs_out/SHA256SUMS" "$tmp/tampered/"
cp "$release_bin" "$tmp/tampered/"
printf '\0' >>"$tmp/tampered/${release_bin##*/}"
if verify_sums "$tmp/tampered" >/dev/null 2>&1; then
	fail "SHA256SUMS: a binary one byte longer was accepted"
fi
if (same_as_release tampered "$tmp/tampered/${release_bin##*/}" "${release_bin##*/}") 2>/dev/null; then
	fail "a binary one byte longer passed as the release binary"
fi
ok "a binary one byte longer is refused (sha256sum -c, and the installed-binary check)"

# --- the release binary ---------------------------------------------------

says_version "release binary" "$release_bin"
session "release-binary" 3 "$leak_and_exit3" "$release_bin"

# --- npm ------------------------------------------------------------------

main_tgz=$abs_out/npm/session-starter-$version.tgz
[[ -f $main_tgz ]] || fail "$main_tgz not found"
# Every platform package: its name, version, os and cpu, and the release
# binary inside.
# shellcheck disable=SC2016 # JavaScript's template literals, not the shell's
mapfile -t platforms < <(node -e 'for (const [k, v] of Object.entries(require(process.argv[1]))) console.log(`${k} ${v.goos} ${v.goarch}`)' \
	"$PWD/scripts/dist/npm/session-starter/lib/platforms.json")
for line in "${platforms[@]}"; do
	read -r key goos arch <<<"$line"
	tgz=$abs_out/npm/session-starter-$key-$version.tgz
	[[ -f $tgz ]] || fail "npm: $tgz not found"
	x="$tmp/npm-$key"
	mkdir "$x"
	tar -xzf "$tgz" -C "$x"
	exe=session-starter ext=
	[[ $goos == windows ]] && exe=session-starter.exe ext=.exe
	# shellcheck disable=SC2016
	node -e '
		const [file, name, version, os, cpu] = process.argv.slice(1);
		const p = require(file);
		const want = { name, version, os: [os], cpu: [cpu] };
		for (const k of Object.keys(want)) {
			if (JSON.stringify(p[k]) !== JSON.stringify(want[k])) {
				console.error(`${file}: ${k} is ${JSON.stringify(p[k])}, want ${JSON.stringify(want[k])}`);
				process.exit(1);
			}
		}' "$x/package/package.json" "@session-starter/$key" "$version" "${key%-*}" "${key#*-}" ||
		fail "npm: @session-starter/$key: package.json"
	[[ -x $x/package/bin/$exe ]] || fail "npm: @session-starter/$key has no executable bin/$exe"
	same_as_release "npm @session-starter/$key" "$x/package/bin/$exe" "session-starter-$version-$goos-$arch$ext"
done
ok "npm: ${#platforms[@]} platform packages, each with os, cpu, version and its release binary"

project=$tmp/npm-project
mkdir "$project"
echo '{ "name": "dist-check", "version": "0.0.0", "private": true }' >"$project/package.json"
# --offline with an empty cache and a registry on a port that refuses:
# nothing can come from a registry. The other platforms' optional
# dependencies are skipped, as on a user's machine they are not fetched.
(
	cd "$project"
	npm_config_update_notifier=false npm install --offline --ignore-scripts --no-audit --no-fund \
		--cache "$tmp/npm-cache" --registry http://127.0.0.1:9/ \
		"$main_tgz" "$abs_out/npm/session-starter-linux-$node_arch-$version.tgz" >"$tmp/npm-install.log" 2>&1
) || {
	sed 's/^/  | /' "$tmp/npm-install.log" >&2
	fail "npm install --offline of the tarballs"
}
shim=$project/node_modules/.bin/session-starter
[[ -x $shim ]] || fail "npm: no $shim"
ok "npm install --offline --ignore-scripts of session-starter and @session-starter/linux-$node_arch"
npm_man=$project/node_modules/session-starter/man/session-starter.1
# shellcheck disable=SC2016
got=$(node -p 'require(process.argv[1]).man' "$project/node_modules/session-starter/package.json")
[[ $got == ./man/session-starter.1 ]] || fail "npm: package.json's man field is $got, want ./man/session-starter.1"
cmp -s "$npm_man" "$abs_out/man/session-starter.1" || fail "npm: $npm_man is not dist/man/session-starter.1"
ok "npm: the man field names man/session-starter.1, the release's man page"

says_version "npm bin shim" "$shim"
session "npm-bin-shim" 3 "$leak_and_exit3" "$shim"

npm_bin=$(cd "$project" && node -p 'require("session-starter").binaryPath()')
[[ $npm_bin == "$project/node_modules/@session-starter/linux-$node_arch/bin/session-starter" ]] ||
	fail "npm: binaryPath() = $npm_bin, want the one in @session-starter/linux-$node_arch"
npm_bin_esm=$(cd "$project" && node --input-type=module -e 'import { binaryPath } from "session-starter"; console.log(binaryPath())')
[[ $npm_bin_esm == "$npm_bin" ]] || fail "npm: binaryPath() from ESM = $npm_bin_esm, want $npm_bin"
same_as_release "npm binaryPath()" "$npm_bin" "${release_bin##*/}"
session "npm-binaryPath" 3 "$leak_and_exit3" "$npm_bin"

# The relay (Node without process.execve, here) passes these signals on
# and dies of the binary's: without --grace the Engine is SIGKILLed, and
# session-starter, then the shim, die of SIGKILL (137). With execve there
# is no relay and the result is the same.
for sig in TERM INT HUP; do
	signalled "npm-bin-shim-sig$sig" "$sig" 137 "$shim"
done
# shellcheck disable=SC2016
session "npm-bin-shim-engine-signal" 143 'sleep 300 & echo "$!" >"$0"; kill -TERM $$' "$shim"
# --control-fd and --status-fd reach the binary through the shim: the
# control pipe's end (its writer, a sleep 1, exits) ends the session.
session "npm-bin-shim-control-fd" 137 "$leak_and_wait" "$shim" --control-fd 3 --status-fd 4 \
	3< <(sleep 1) 4>"$tmp/status.json"
grep -q '"reason":"control-closed"' "$tmp/status.json" ||
	fail "npm: the status record through the shim does not say control-closed: $(cat "$tmp/status.json")"
ok "npm: --control-fd and --status-fd through the shim: ended by the control pipe's end, records written"

# A platform with no package, and a platform whose package is not
# installed, faked in the resolver and in the bin shim.
cat >"$tmp/fake-sunos.js" <<'EOF'
Object.defineProperty(process, 'platform', { value: 'sunos' });
Object.defineProperty(process, 'arch', { value: 'sparc' });
EOF
# shellcheck disable=SC2016
got=$(cd "$project" && node -r "$tmp/fake-sunos.js" -e '
	try { require("session-starter").binaryPath(); console.log("no error"); }
	catch (e) { console.log(`${e.code} ${e.message}`); }')
[[ $got == "ERR_SESSION_STARTER_UNSUPPORTED_PLATFORM session-starter: no package for this platform (sunos-sparc);"* ]] ||
	fail "npm: binaryPath() on a faked sunos-sparc: $got"
status=0
NODE_OPTIONS="--require=$tmp/fake-sunos.js" "$shim" -- true >"$tmp/shim-sunos.out" 2>"$tmp/shim-sunos.err" || status=$?
if ! [[ $status -eq 127 && ! -s $tmp/shim-sunos.out && $(wc -l <"$tmp/shim-sunos.err") -eq 1 ]] ||
	! grep -q 'no package for this platform (sunos-sparc)' "$tmp/shim-sunos.err"; then
	fail "npm: the bin shim on a faked sunos-sparc: status $status, stderr: $(cat "$tmp/shim-sunos.err")"
fi
# shellcheck disable=SC2016
got=$(cd "$project" && node -e '
	Object.defineProperty(process, "arch", { value: process.argv[1] });
	try { require("session-starter").binaryPath(); console.log("no error"); }
	catch (e) { console.log(`${e.code} ${e.message}`); }' "$other_node_arch")
[[ $got == "ERR_SESSION_STARTER_NOT_INSTALLED session-starter: the package for this platform (linux-$other_node_arch), @session-starter/linux-$other_node_arch, is not installed"* ]] ||
	fail "npm: binaryPath() on a faked linux-$other_node_arch: $got"
got=$(cd "$project" && SESSION_STARTER_BINARY=$release_bin node -p 'require("session-starter").binaryPath()')
[[ $got == "$release_bin" ]] || fail "npm: binaryPath() with SESSION_STARTER_BINARY: $got"
ok "npm: one error naming the platform for sunos-sparc (binaryPath() and the shim, exit 127) and linux-$other_node_arch; SESSION_STARTER_BINARY"

# --- wheels ---------------------------------------------------------------

n=0
for whl in "$abs_out"/wheels/*.whl; do
	case $whl in
	*manylinux*x86_64*) name=linux-amd64 ;;
	*manylinux*aarch64*) name=linux-arm64 ;;
	*macosx*x86_64*) name=darwin-amd64 ;;
	*macosx*arm64*) name=darwin-arm64 ;;
	*win_amd64*) name=windows-amd64.exe ;;
	*win_arm64*) name=windows-arm64.exe ;;
	*) fail "wheels: $whl is for no platform this check knows" ;;
	esac
	python3 scripts/dist/wheelcheck.py "$whl" "$pyversion" "$abs_out/session-starter-$version-$name" ||
		fail "wheels: ${whl##*/} refused"
	n=$((n + 1))
done
((n == 6)) || fail "wheels: $n wheels, want 6 (linux, macOS, Windows x amd64, arm64)"
ok "wheels: 6, each with a complete RECORD, its tags and its release binary"

whl=$(echo "$abs_out"/wheels/session_starter-"$pyversion"-py3-none-manylinux_2_17_"$wheel_machine".*.whl)
[[ -f $whl ]] || fail "wheels: no Linux wheel for $wheel_machine"
python3 -m venv "$tmp/venv"
venv=$tmp/venv
# --isolated: no pip configuration of this machine (an index, find-links)
# takes part; --no-index: nothing comes from an index.
pip=("$venv/bin/python" -m pip --isolated --disable-pip-version-check --no-cache-dir)
"${pip[@]}" install --no-index "$whl" >"$tmp/pip-install.log" 2>&1 || {
	sed 's/^/  | /' "$tmp/pip-install.log" >&2
	fail "pip install --no-index ${whl##*/}"
}
ok "pip install --no-index ${whl##*/} into a venv"
[[ -x $venv/bin/session-starter ]] || fail "wheel: no $venv/bin/session-starter"
same_as_release "wheel's venv/bin/session-starter" "$venv/bin/session-starter" "${release_bin##*/}"
says_version "wheel's venv/bin/session-starter" "$venv/bin/session-starter"
session "wheel-venv-bin" 3 "$leak_and_exit3" "$venv/bin/session-starter"
cmp -s "$venv/share/man/man1/session-starter.1" "$abs_out/man/session-starter.1" ||
	fail "wheel: $venv/share/man/man1/session-starter.1 is not dist/man/session-starter.1"
cmp -s "$venv/share/bash-completion/completions/session-starter" "$abs_out/completions/session-starter.bash" ||
	fail "wheel: $venv/share/bash-completion/completions/session-starter is not dist/completions/session-starter.bash"
# man-db adds share/man beside each bin directory of PATH to its search.
got=$(env -u MANPATH PATH="$venv/bin:/usr/bin:/bin" man -w session-starter 2>&1) || true
[[ $got == "$venv/share/man/man1/session-starter.1" ]] ||
	fail "wheel: man -w session-starter with the venv's bin on PATH: $got"
ok "wheel: man finds the venv's share/man/man1/session-starter.1; its bash completion in share/bash-completion"

py_bin=$("$venv/bin/python" -c 'import session_starter; print(session_starter.binary_path())')
[[ $py_bin == "$venv/bin/session-starter" ]] || fail "wheel: binary_path() = $py_bin, want $venv/bin/session-starter"
py_version=$("$venv/bin/python" -c 'import session_starter; print(session_starter.__version__)')
[[ $py_version == "$pyversion" ]] || fail "wheel: session_starter.__version__ = $py_version, want $pyversion"
session "wheel-binary_path" 3 "$leak_and_exit3" "$py_bin"
session "wheel-python-m" 3 "$leak_and_exit3" "$venv/bin/python" -m session_starter

# A platform with no wheel, faked in the resolver and in python -m.
fake_platform='
import sys, platform
sys.platform = sys.argv[1]
platform.machine = lambda: sys.argv[2]
'
for fake in "sunos5 sparc sunos5-sparc" "freebsd14 amd64 freebsd-amd64"; do
	read -r plat machine want <<<"$fake"
	got=$("$venv/bin/python" -c "$fake_platform
import session_starter
try:
    session_starter.binary_path()
    print('no error')
except session_starter.BinaryNotFoundError as err:
    print(err)" "$plat" "$machine")
	[[ $got == "session-starter: no wheel for this platform ($want);"* ]] || fail "wheel: binary_path() on a faked $want: $got"
	status=0
	"$venv/bin/python" -c "$fake_platform
import runpy
runpy.run_module('session_starter', run_name='__main__')" "$plat" "$machine" >"$tmp/py-fake.out" 2>"$tmp/py-fake.err" || status=$?
	if ! [[ $status -eq 127 && ! -s $tmp/py-fake.out && $(wc -l <"$tmp/py-fake.err") -eq 1 ]] ||
		! grep -qF "no wheel for this platform ($want)" "$tmp/py-fake.err"; then
		fail "wheel: python -m session_starter on a faked $want: status $status, stderr: $(cat "$tmp/py-fake.err")"
	fi
done
got=$(SESSION_STARTER_BINARY=$release_bin "$venv/bin/python" -c 'import session_starter; print(session_starter.binary_path())')
[[ $got == "$release_bin" ]] || fail "wheel: binary_path() with SESSION_STARTER_BINARY: $got"
other_whl=$abs_out/wheels/session_starter-$pyversion-py3-none-macosx_12_0_x86_64.whl
if "${pip[@]}" install --no-index "$other_whl" >"$tmp/pip-other.log" 2>&1; then
	fail "wheel: pip installed the macOS wheel on Linux"
fi
grep -q 'is not a supported wheel on this platform' "$tmp/pip-other.log" ||
	fail "wheel: pip's refusal of the macOS wheel: $(cat "$tmp/pip-other.log")"
ok "wheel: one error naming the platform for sunos5-sparc and freebsd-amd64 (binary_path() and python -m, exit 127); SESSION_STARTER_BINARY; pip refuses the macOS wheel"

# --- the launch APIs, installed -------------------------------------------

bash scripts/dist/launchers.sh installed "$project" "$venv" | sed 's/^launchers: /dist-check: /'
ok "the launch API suites against the installed npm package and wheel"

# --- .deb -----------------------------------------------------------------

deb=$abs_out/deb/session-starter_${debversion}_$goarch.deb
[[ -f $deb ]] || fail "deb: $deb not found"
for field in "Package=session-starter" "Version=$debversion" "Architecture=$goarch"; do
	got=$(dpkg-deb -f "$deb" "${field%%=*}")
	[[ $got == "${field#*=}" ]] || fail "deb: ${field%%=*}: $got, want ${field#*=}"
done
listing=$(dpkg-deb -c "$deb")
grep -qE '^-rwxr-xr-x root/root .* \./usr/bin/session-starter$' <<<"$listing" ||
	fail "deb: ./usr/bin/session-starter is not root's with mode 0755: $listing"
dpkg-deb -x "$deb" "$tmp/deb"
same_as_release "deb's /usr/bin/session-starter" "$tmp/deb/usr/bin/session-starter" "${release_bin##*/}"
says_version "deb's /usr/bin/session-starter" "$tmp/deb/usr/bin/session-starter"
session "deb" 3 "$leak_and_exit3" "$tmp/deb/usr/bin/session-starter"
for arch in amd64 arm64; do
	x=$tmp/deb-$arch
	dpkg-deb -x "$abs_out/deb/session-starter_${debversion}_$arch.deb" "$x"
	same_as_release "deb $arch" "$x/usr/bin/session-starter" "session-starter-$version-linux-$arch"
done
ok "deb: control fields; amd64 and arm64 hold their release binaries"

# The man page, the completions and the README, checked in the extracted
# tree: never dpkg -i, since a session-starter on PATH changes which
# spawn helper starter/contain finds.
d=$tmp/deb/usr/share
for f in man/man1/session-starter.1.gz bash-completion/completions/session-starter \
	zsh/vendor-completions/_session-starter fish/vendor_completions.d/session-starter.fish \
	doc/session-starter/README.md.gz doc/session-starter/copyright; do
	[[ -f $d/$f ]] || fail "deb: no /usr/share/$f"
done
grep -qE '^-rw-r--r-- root/root .* \./usr/share/man/man1/session-starter\.1\.gz$' <<<"$listing" ||
	fail "deb: the man page is not root's with mode 0644"
cmp -s <(gzip -dc "$d/man/man1/session-starter.1.gz") "$abs_out/man/session-starter.1" ||
	fail "deb: the man page is not dist/man/session-starter.1"
cmp -s "$d/bash-completion/completions/session-starter" "$abs_out/completions/session-starter.bash" ||
	fail "deb: the bash completion is not dist/completions/session-starter.bash"
cmp -s "$d/zsh/vendor-completions/_session-starter" "$abs_out/completions/_session-starter" ||
	fail "deb: the zsh completion is not dist/completions/_session-starter"
cmp -s "$d/fish/vendor_completions.d/session-starter.fish" "$abs_out/completions/session-starter.fish" ||
	fail "deb: the fish completion is not dist/completions/session-starter.fish"
cmp -s <(gzip -dc "$d/doc/session-starter/README.md.gz") README.md || fail "deb: README.md.gz is not README.md"
# man -l renders the page, every groff warning on, in a UTF-8 and the C
# locale (ASCII): not a word on stderr.
for locale in C.UTF-8 C; do
	LC_ALL=$locale MANWIDTH=80 man --warnings=w -l "$d/man/man1/session-starter.1.gz" \
		>"$tmp/man.out" 2>"$tmp/man.err" || fail "deb: man -l of the man page failed: $(cat "$tmp/man.err")"
	[[ ! -s $tmp/man.err ]] || fail "deb: man -l warns (LC_ALL=$locale): $(cat "$tmp/man.err")"
	grep -q -- '--watch-parent' "$tmp/man.out" || fail "deb: man -l's page has no --watch-parent"
done
ok "deb: man -l renders /usr/share/man/man1/session-starter.1.gz without a warning"
# bash, non-interactive, completes as a shell does on Tab: through the
# function complete -p names, with COMP_WORDS and COMP_CWORD set.
# shellcheck disable=SC2016 # expanded by that bash
got=$(bash --norc --noprofile -c '
	source "$1"
	spec=$(complete -p session-starter) || exit 1
	fn=${spec#*-F }
	fn=${fn%% *}
	COMP_WORDS=(session-starter --wat)
	COMP_CWORD=1
	COMP_LINE="session-starter --wat"
	COMP_POINT=${#COMP_LINE}
	"$fn" session-starter --wat session-starter
	echo "${COMPREPLY[*]}"' bash "$d/bash-completion/completions/session-starter") ||
	fail "deb: bash with the completion sourced failed: $got"
[[ $got == "--watch-parent --watch-stdin" ]] || fail "deb: bash completes --wat to '$got', want '--watch-parent --watch-stdin'"
ok "deb: bash, the completion sourced, completes --wat to $got"
zsh -n "$d/zsh/vendor-completions/_session-starter" || fail "deb: zsh -n of the zsh completion"
fish --no-config -n "$d/fish/vendor_completions.d/session-starter.fish" || fail "deb: fish -n of the fish completion"
# shellcheck disable=SC2016 # expanded by fish
got=$(fish --no-config -c 'source $argv[1]; complete -C "session-starter --wat"' "$d/fish/vendor_completions.d/session-starter.fish" | cut -f1 | tr '\n' ' ')
[[ $got == "--watch-parent --watch-stdin " ]] || fail "deb: fish completes --wat to '$got', want '--watch-parent --watch-stdin'"
ok "deb: zsh -n and fish -n read their completions; fish completes --wat to the --watch- flags; the README is the tree's"

# --- Homebrew -------------------------------------------------------------

formula=$abs_out/homebrew/session-starter.rb
src=session-starter-$version.tar.gz
ruby -c "$formula" >/dev/null || fail "homebrew: ruby -c $formula"
grep -qxF "  url \"https://github.com/session-starter/session-starter/releases/download/v$version/$src\"" "$formula" ||
	fail "homebrew: the formula's url is not the release's $src"
grep -qxF "  sha256 \"$(release_sum "$src")\"" "$formula" ||
	fail "homebrew: the formula's sha256 is not $src's"
# The formula installs the man page and the completions from the
# archive: each file it names must be there.
mkdir "$tmp/brew"
tar -xzf "$abs_out/$src" -C "$tmp/brew"
mapfile -t installs < <(sed -n 's/^ *[a-z0-9_]*\.install "\([^"]*\)".*/\1/p' "$formula")
((${#installs[@]} == 4)) || fail "homebrew: the formula installs ${#installs[@]} files, want the man page and 3 completions"
for f in "${installs[@]}"; do
	[[ -f $tmp/brew/session-starter-$version/$f ]] || fail "homebrew: the formula installs $f, which $src does not hold"
done
ok "homebrew: ruby -c, url and sha256 of $src; $src holds the ${#installs[@]} files the formula installs"

# The formula builds the source archive with the Go of the machine; here,
# as it would, with the release's flags, offline (GOPROXY=off: from the
# module cache, which make test or go mod download has filled).
(
	cd "$tmp/brew/session-starter-$version"
	CGO_ENABLED=0 GOPROXY=off GOFLAGS=-mod=readonly "$GO" build -trimpath -buildvcs=false \
		-ldflags "-s -w -X main.version=$version -X main.commit=$commit" -o "$tmp/brew/bin/session-starter" ./cmd/session-starter
) >"$tmp/brew.log" 2>&1 || {
	sed 's/^/  | /' "$tmp/brew.log" >&2
	fail "homebrew: go build of $src (offline: if modules are missing, run go mod download first)"
}
same_as_release "the build of $src" "$tmp/brew/bin/session-starter" "${release_bin##*/}"
says_version "the build of $src" "$tmp/brew/bin/session-starter"
# The formula's test block, as a shell would run it.
rm -f "$tmp/brew/sleep.pid"
status=0
timeout --kill-after=5 60 env "$marker" "$tmp/brew/bin/session-starter" -- \
	sh -c "sleep 300 & echo \$! > $tmp/brew/sleep.pid; exit 3" </dev/null >/dev/null || status=$?
[[ $status -eq 3 ]] || fail "homebrew: the formula's test: exit status $status, want 3"
no_leftovers "homebrew-test" "$tmp/brew/sleep.pid"
if kill -0 "$SLEEP_PID" 2>/dev/null; then
	fail "homebrew: the formula's test: pid $SLEEP_PID is still there"
fi
ok "homebrew: $src builds byte for byte the release binary; the formula's test passes"

echo "dist-check: OK"
