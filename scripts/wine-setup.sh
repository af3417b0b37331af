#!/usr/bin/env bash
# Sets up Wine on Debian to run the Windows build of session-starter and
# its tests, and runs them there:
#
#   scripts/wine-setup.sh                  set up only
#   scripts/wine-setup.sh go-test ARG...   set up, then run
#                                          GOOS=windows go test -exec WINE ARG...
#
# Setting up means: wine64 and mingw-w64 from apt-get when missing (as root;
# nothing else is downloaded); a Wine prefix of its own, $WINEPREFIX
# (default ~/.cache/session-starter-wine), so that the wineserver started and
# stopped here is never someone else's; and, where the prefix has none, the
# stand-in bcryptprimitives.dll that Go's runtime needs on Wine 8
# (scripts/wine/bcryptprimitives.c).
#
# go-test starts the prefix's wineserver and Wine's services first, with
# their output on /dev/null: started by the first test binary they would
# inherit its stdout, the pipe go test reads to end of file, and hold it
# open long after the test binary exited. A wineserver this script
# started is stopped when the tests end; one that was running already (rc 2
# from wineserver -p) is left alone.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

export WINEPREFIX="${WINEPREFIX:-$HOME/.cache/session-starter-wine}"
# Quiet, and no offer to install Mono or Gecko while the prefix is made.
export WINEDEBUG="${WINEDEBUG:--all}"
export WINEDLLOVERRIDES="${WINEDLLOVERRIDES:-mscoree,mshtml=}"

MINGW_CC=x86_64-w64-mingw32-gcc

find_tool() {
  local name
  for name in "$@"; do
    if command -v "$name" >/dev/null 2>&1; then
      command -v "$name"
      return 0
    fi
  done
  return 1
}

wine_bin() { find_tool wine64 /usr/lib/wine/wine64 wine; }
wineserver_bin() { find_tool wineserver /usr/lib/wine/wineserver64 /usr/lib/wine/wineserver; }

install_packages() {
  if wine_bin >/dev/null && wineserver_bin >/dev/null && command -v "$MINGW_CC" >/dev/null 2>&1; then
    return 0
  fi
  if [[ $(id -u) -ne 0 ]]; then
    echo "wine-setup: wine64 or mingw-w64 missing; as root: apt-get install wine64 gcc-mingw-w64-x86-64-win32" >&2
    exit 1
  fi
  echo "wine-setup: apt-get install wine64 gcc-mingw-w64-x86-64-win32" >&2
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
    wine64 gcc-mingw-w64-x86-64-win32 >/dev/null
}

make_prefix() {
  local wine=$1
  if [[ ! -f "$WINEPREFIX/system.reg" ]]; then
    echo "wine-setup: making the Wine prefix $WINEPREFIX" >&2
    mkdir -p "$WINEPREFIX"
    "$wine" wineboot --init </dev/null >/dev/null 2>&1
    # wineboot leaves its wineserver running for a moment: wait for it, so
    # that go-test starts (and later stops) a wineserver of its own.
    "$(wineserver_bin)" -w
  fi
  local dll="$WINEPREFIX/drive_c/windows/system32/bcryptprimitives.dll"
  if [[ ! -f "$dll" ]]; then
    echo "wine-setup: installing the ProcessPrng stand-in as $dll" >&2
    "$MINGW_CC" -shared -O2 -s -o "$dll" scripts/wine/bcryptprimitives.c -ladvapi32
  fi
}

install_packages
wine=$(wine_bin)
wineserver=$(wineserver_bin)
make_prefix "$wine"

if [[ $# -eq 0 ]]; then
  exit 0
fi
if [[ $1 != go-test ]]; then
  echo "usage: scripts/wine-setup.sh [go-test ARG...]" >&2
  exit 2
fi
shift

started=0
rc=0
"$wineserver" -p </dev/null >/dev/null 2>&1 || rc=$?
case $rc in
  0) started=1 ;;
  2) echo "wine-setup: a wineserver already runs for $WINEPREFIX; using it" >&2 ;;
  *)
    echo "wine-setup: wineserver -p: exit status $rc" >&2
    exit 1
    ;;
esac
stop_server() {
  if [[ $started -eq 1 ]]; then
    "$wineserver" -k || true
  fi
}
trap stop_server EXIT
# The first Wine process of a wineserver starts Wine's own services
# (services.exe, winedevice.exe, …), which live as long as the wineserver
# and inherit that process's output: start them here, on /dev/null.
"$wine" cmd.exe /c exit 0 </dev/null >/dev/null 2>&1

GOOS=windows "${GO:-go}" test -exec "$wine" "$@"
