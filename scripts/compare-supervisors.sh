#!/usr/bin/env bash
# Which processes survive a session, for session-starter's two modes and
# for tini, dumb-init and bwrap. The Engine leaves a background member of
# its group and a setsid escapee; the session then ends three ways (the
# Engine exits, SIGTERM to the supervisor, SIGKILL of the supervisor), and
# the table says which of the two are still live. Every process is tagged
# with a marker in its environment; only tagged processes are looked at
# and killed, by PID. Installs tini, dumb-init and bubblewrap if missing.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
S=${S:-bin/session-starter}
[ -x "$S" ] || make build >/dev/null
for pkg in tini:tini dumb-init:dumb-init bwrap:bubblewrap; do
  if ! command -v "${pkg%%:*}" >/dev/null 2>&1; then
    apt-get install -y -qq "${pkg#*:}" >/dev/null 2>&1 || { apt-get update -qq && apt-get install -y -qq "${pkg#*:}" >/dev/null; }
  fi
done

mark="compare-supervisors-$$"
export COMPARE_MARK="$mark"
engine='sleep 3001 & setsid sleep 3002 & sleep 0.3;'

# tagged prints the PIDs of live processes whose environment has the mark
# and whose command line is "sleep N".
tagged() {
  local n=$1 env
  for d in /proc/[0-9]*; do
    env=$({ tr '\0' '\n' <"$d/environ"; } 2>/dev/null) || continue
    grep -qx "COMPARE_MARK=$mark" <<<"$env" || continue
    [ "$({ tr '\0' ' ' <"$d/cmdline"; } 2>/dev/null)" = "sleep $n " ] || continue
    grep -q '^State:.Z' "$d/status" 2>/dev/null && continue
    echo "${d#/proc/}"
  done
}
state() { if [ -n "$(tagged "$1")" ]; then echo live; else echo gone; fi; }
cleanup() { for n in 3001 3002; do for p in $(tagged "$n"); do kill -9 "$p" 2>/dev/null || true; done; done; }
trap cleanup EXIT

run() { # scenario, supervisor command...
  local scen=$1 p
  shift
  case $scen in
    exit) "$@" sh -c "$engine exit 0" >/dev/null 2>&1 || true ;;
    term | kill)
      "$@" sh -c "$engine sleep 30" >/dev/null 2>&1 &
      p=$!
      sleep 0.6
      kill -"${scen^^}" "$p"
      wait "$p" 2>/dev/null || true
      ;;
  esac
  sleep 0.5 # let the guard or the kernel finish ending what it ends
  echo "$(state 3001) / $(state 3002)"
  cleanup
}

printf '| supervisor | Engine exits | SIGTERM to it | it is SIGKILLed |\n|---|---|---|---|\n'
row() {
  local name=$1
  shift
  printf '| %s | %s | %s | %s |\n' "$name" "$(run exit "$@")" "$(run term "$@")" "$(run kill "$@")"
}
row "session-starter --containment cgroup" "$S" --containment cgroup --
row "session-starter --containment group" "$S" --containment group --
row "tini -s -g" tini -s -g --
row "dumb-init" dumb-init
row "bwrap --die-with-parent --unshare-pid" bwrap --bind / / --dev /dev --die-with-parent --unshare-pid
