#!/usr/bin/env bash
# Runs one step of `make test` and records how long it took, so a CI log shows where the time goes.
# usage: scripts/timed-step.sh NAME COMMAND...   (a step)
#        scripts/timed-step.sh --reset            (a new run starts: forget the steps, note the time)
#        scripts/timed-step.sh --summary          (the steps so far, and the run's wall time)
set -uo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
TIMES="$ROOT/.build/test-steps.txt"
case "${1:-}" in
  --reset) mkdir -p "$ROOT/.build"; : > "$TIMES"; date +%s > "$TIMES.start"; exit 0 ;;
  --summary)
    echo "==> make test, step by step (wall seconds; the two lanes' steps overlap)"
    cat "$TIMES"
    echo "$(( $(date +%s) - $(cat "$TIMES.start") )) s for the whole of make test"
    exit 0 ;;
esac
name=$1; shift
start=$(date +%s)
"$@"
status=$?
# one short line per step: appends from the two lanes do not interleave
printf '%6d  %s%s\n' $(( $(date +%s) - start )) "$name" "$([ $status -eq 0 ] || echo " (failed: $status)")" >> "$TIMES"
exit $status
