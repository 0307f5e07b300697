#!/usr/bin/env bash
# Runs one step of `make test` and records how long it took, wall and CPU, so a CI log shows where the time goes
# (on 2 cores the CPU column says which steps a faster run has to shrink, the wall column which ones wait).
# usage: scripts/timed-step.sh NAME COMMAND...   (a step)
#        scripts/timed-step.sh --reset            (a new run starts: forget the steps, note the time)
#        scripts/timed-step.sh --summary          (the steps so far, and the run's wall time)
set -uo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
TIMES="$ROOT/.build/test-steps.txt"
case "${1:-}" in
  --reset) mkdir -p "$ROOT/.build"; : > "$TIMES"; date +%s > "$TIMES.start"; exit 0 ;;
  --summary)
    echo "==> make test, step by step (wall seconds, then CPU seconds of its processes; the lanes' steps overlap)"
    cat "$TIMES"
    cpu=$(awk '{ n += $2 } END { print n + 0 }' "$TIMES")
    echo "$(( $(date +%s) - $(cat "$TIMES.start") )) s for the whole of make test, $cpu CPU s in its steps"
    exit 0 ;;
esac
name=$1; shift
start=$(date +%s)
"$@"
status=$?
# user + system time of the processes the step waited for (bash's `times`, second line: its children); a process
# left running after its step (a language-model host waiting out its keep-alive) is not counted
# (written to a file: in a command substitution `times` would report the subshell's own children, none)
times > "$TIMES.$$"
cpu=$(sed -n 2p "$TIMES.$$" \
  | awk '{ n = 0; for (i = 1; i <= 2; i++) { split($i, t, /[ms]/); n += t[1] * 60 + t[2] } printf "%d", n }')
rm -f "$TIMES.$$"
# one short line per step: appends from the lanes do not interleave
failed=$([ $status -eq 0 ] || echo " (failed: $status)")
printf '%6d %6s  %s%s\n' $(( $(date +%s) - start )) "$cpu" "$name" "$failed" >> "$TIMES"
exit $status
