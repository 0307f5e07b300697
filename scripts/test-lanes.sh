#!/usr/bin/env bash
# `make test` after setup, in two lanes at once. One after another, the steps left a core idle 29% of the time
# (tests waiting on real-time audio, sockets, a language model; measured with vmstat over a whole run), and the
# two lanes share nothing but the installed models: lane 1 is the Swift suite in the optimised build, its output
# live; lane 2 is the thread- and address-sanitizer builds and suites, the fuzzers' build, the Examples package,
# and the openai/browser and Ray client tests, its output kept in .build/test-lane-2.log and printed once lane 1 is
# done. Nothing in either lane asserts a time, so sharing the cores only makes each slower. The short fuzzing
# passes run after both lanes, alone.
# usage (from the Makefile): scripts/test-lanes.sh SWIFT-TEST-COMMAND...
set -uo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
STEP="$ROOT/scripts/timed-step.sh"
LOG="$ROOT/.build/test-lane-2.log"
cd "$ROOT"

lane2() {
  set -e
  "$STEP" "tsan build" make --no-print-directory tsan-build
  "$STEP" "tsan tests" make --no-print-directory tsan-run
  "$STEP" "asan build" make --no-print-directory asan-build
  "$STEP" "asan tests" make --no-print-directory asan-quick-run
  "$STEP" "fuzz build" scripts/fuzz.sh --build-only
  "$STEP" examples scripts/run-examples.sh
  "$STEP" "client tests" scripts/run-client-tests.sh
  "$STEP" "ray tests" scripts/run-ray-tests.sh
}

lane2 > "$LOG" 2>&1 < /dev/null &
LANE2=$!
trap 'kill -- -$LANE2 2>/dev/null; kill $LANE2 2>/dev/null' INT TERM
"$STEP" "swift test" "$@"
one=$?
echo "==> lane 1 (swift test) ended with $one; lane 2 (sanitizers, fuzzers, Examples, clients, Ray) follows"
wait $LANE2
two=$?
cat "$LOG"
echo "==> lane 2 ended with $two"
[ $one -eq 0 ] && [ $two -eq 0 ] || exit 1
# the fuzzers last, alone: their targets are servers and loaders checked for staying alive input after input (lane 2
# built them). Not side by side: the Realtime WebSocket's target runs the speech models on what it is sent, and with
# the other four beside it one handshake went unanswered for its whole 30 s (CI-style run of session 18).
"$STEP" fuzz scripts/fuzz.sh --prebuilt --runs 20000 fuzz-wav fuzz-profile fuzz-sound-model fuzz-http || exit 1
"$STEP" "fuzz websocket" scripts/fuzz.sh --prebuilt --runs 5000 fuzz-websocket
