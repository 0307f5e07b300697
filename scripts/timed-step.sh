#!/usr/bin/env bash
# Runs one step of `make test` and records how long it took, so a CI log shows where the time goes.
# usage: scripts/timed-step.sh NAME COMMAND... ; scripts/timed-step.sh --summary (prints the steps so far)
set -uo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
TIMES="$ROOT/.build/test-steps.txt"
if [ "${1:-}" = "--summary" ]; then
  echo "==> make test, step by step (wall seconds)"
  cat "$TIMES"
  awk '{ s += $1 } END { printf "%6d  in all\n", s }' "$TIMES"
  exit 0
fi
if [ "${1:-}" = "--reset" ]; then mkdir -p "$ROOT/.build"; : > "$TIMES"; exit 0; fi
name=$1; shift
start=$(date +%s)
"$@"
status=$?
printf '%6d  %s%s\n' $(( $(date +%s) - start )) "$name" "$([ $status -eq 0 ] || echo " (failed: $status)")" >> "$TIMES"
exit $status
