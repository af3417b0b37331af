#!/usr/bin/env bash
# Disassembles the raw children of a session-starter binary (the raw gate
# and the guard's porch, package internal/sys/rawfork) and fails when one
# of them can call anything outside the allowlist below — their own
# nosplit functions and the system call leaf — or reach a runtime.panic*
# site (a bounds check, a nil map, a division by zero) or the stack
# growth path. The child of a fork runs no Go runtime: a call into it is a
# crash, or worse, in the child.
#
# Usage: scripts/check-raw-children.sh BINARY (an optimized build, as
# shipped: go build ./cmd/session-starter).
set -euo pipefail

bin=${1:?usage: $0 BINARY}
GO=${GO:-go}
pkg=github.com/session-starter/session-starter/internal/sys/rawfork

# The functions a child may run: everything reachable from gateMain and
# porchMain must be one of these.
allow=(
  gateMain gateJoin gateHandOn gateListen gateReady gateAwaitGo gateExec
  porchMain porchShed porchShedByte porchDrop porchDropUpTo
  porchArm porchSlots porchIgnore porchRefuse porchWait
  porchEmpty porchEngineExited porchCgroupEmpty
  porchRounds porchPause porchExec groupSignal
  porchSweep sweepPID sweepFile sweepStat sweepUID sweepMarked sweepByte
  exit read writeAll keepOnly setName putLine putNum now poll rawSyscall6.abi0
)

dump=$(mktemp)
trap 'rm -f "$dump"' EXIT
"$GO" tool objdump -s "^${pkg//./\\.}\\." "$bin" >"$dump"

declare -A allowed=()
for f in "${allow[@]}"; do allowed[$f]=1; done

# calls FUNC: the symbols FUNC's body calls or jumps to.
calls() {
  awk -v fn="TEXT $pkg.$1(SB)" '
    /^TEXT / { on = index($0, fn) == 1; next }
    on && /(CALL|JMP)[ \t][^ \t]+\(SB\)/ {
      for (i = 1; i <= NF; i++) if ($i == "CALL" || $i == "JMP") { s = $(i+1); sub(/\(SB\)$/, "", s); print s }
    }' "$dump" | sort -u
}

declare -A seen=()
todo=(gateMain porchMain)
bad=0
while ((${#todo[@]})); do
  f=${todo[0]}
  todo=("${todo[@]:1}")
  [[ -n ${seen[$f]:-} ]] && continue
  seen[$f]=1
  if ! grep -q "^TEXT $pkg\.$f(SB)" "$dump"; then
    [[ $f == rawSyscall6.abi0 ]] && continue # assembly: listed on its own
    echo "check-raw-children: $f: not found in $bin" >&2
    bad=1
    continue
  fi
  while read -r sym; do
    [[ -z $sym ]] && continue
    name=${sym#"$pkg."}
    if [[ $name == "$sym" || -z ${allowed[$name]:-} ]]; then
      echo "check-raw-children: $f calls $sym, which is not on the allowlist" >&2
      bad=1
      continue
    fi
    todo+=("$name")
  done < <(calls "$f")
done
if ((bad)); then
  exit 1
fi
echo "check-raw-children: ${#seen[@]} functions of the raw children call only each other and the system call leaf"
