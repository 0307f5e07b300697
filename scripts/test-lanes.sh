#!/usr/bin/env bash
# `make test` after setup's installation: its jobs on two workers at once, each worker taking the next job as it
# finishes one. One after another the steps left a core idle 29% of the time (tests waiting on real-time audio,
# sockets, a language model; measured with vmstat over a whole run), and the jobs share nothing but the installed
# models. Worker 1 first finishes setup (`make setup-build`: the release build, the runtime checks), then builds the
# test targets in that optimised build and runs the Swift suite, its output live; worker 2 starts at once with the
# thread-sanitizer build and suite. Setup's build alone kept 1.4 of the 2 cores busy (135 CPU-s in 99 s in a CI run:
# its modules depend on each other in a chain), so the sanitizer build fills the rest; the jobs that run the release
# build wait for it. Then each worker takes the longest job left: the address-sanitizer build and suite, the fuzzers
# (their build, then short passes), the Examples package, the Ray tests, and last a part of the Swift suite (the
# Makefile's SWIFT_PART, run in worker 1's build of the tests), which whichever worker is free first takes, so the two
# end within one short job. The openai/browser client tests run in a lane of their own (below). Nothing asserts a
# time, so sharing the cores only makes each slower. Every job but setup and the Swift suite keeps its output in
# .build/test-logs/JOB.log, printed once all are done.
# usage (from the Makefile): scripts/test-lanes.sh SWIFT-TEST-COMMAND...   (run after `make tests-build`: --skip-build)
set -uo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
STEP="$ROOT/scripts/timed-step.sh"
LOGS="$ROOT/.build/test-logs"
QUEUE="$LOGS/queue"
cd "$ROOT"

job() {
  case "$1" in
    tsan) "$STEP" "tsan build" make --no-print-directory tsan-build && "$STEP" "tsan tests" make --no-print-directory tsan-run ;;
    asan) "$STEP" "asan build" make --no-print-directory asan-quick-build && "$STEP" "asan tests" make --no-print-directory asan-quick-run ;;
    # their targets are servers and loaders checked for staying alive input after input
    fuzz) "$STEP" "fuzz build" scripts/fuzz.sh --build-only \
            && "$STEP" fuzz scripts/fuzz.sh --prebuilt --runs 20000 fuzz-wav fuzz-profile fuzz-sound-model fuzz-http \
            && "$STEP" "fuzz websocket" scripts/fuzz.sh --prebuilt --runs 5000 fuzz-websocket ;;
    examples) "$STEP" examples scripts/run-examples.sh ;;
    clients) setup_built && "$STEP" "client tests" scripts/run-client-tests.sh ;;
    ray) setup_built && "$STEP" "ray tests" scripts/run-ray-tests.sh ;;
    # the Swift suite's part (the Makefile's SWIFT_PART) that whichever worker is free first takes, once worker 1 built it
    swift-part) wait_built tests && "$STEP" "swift test, part" make --no-print-directory swift-part-run ;;
    # the tests that read ../shared/data, again as on a clone alone (the data pointed nowhere): their fallbacks must
    # pass wherever Earshot is cloned, and CI always has the data
    no-data) wait_built tests && "$STEP" "swift test, no shared data" make --no-print-directory no-data-run ;;
    *) echo "no such job: $1"; return 2 ;;
  esac
}

# waits for a build of worker 1 (setup's, or the test targets'); fails when it failed
wait_built() {
  while [ ! -s "$LOGS/$1.status" ]; do sleep 1; done
  [ "$(cat "$LOGS/$1.status")" = 0 ] || { echo "the $1 build failed: see the Swift suite's output"; return 1; }
}
setup_built() { wait_built setup; }

# the next job in the queue, or nothing when it is empty (both workers ask; the lock keeps each job to one)
next_job() {
  (
    flock 9
    head -n 1 "$QUEUE"
    sed -i 1d "$QUEUE"
  ) 9> "$QUEUE.lock"
}

# runs its first job, then whatever the queue holds (not with "alone"); a job's exit status is kept beside its log
worker() {
  local name=$1 alone=${2:-}
  while [ -n "$name" ]; do
    job "$name" > "$LOGS/$name.log" 2>&1 < /dev/null
    echo $? > "$LOGS/$name.status"
    [ -z "$alone" ] || break
    name=$(next_job)
  done
}

rm -rf "$LOGS"
mkdir -p "$LOGS"
# longest first (their wall times: BENCHMARKS.md "make test time"), then the Swift suite's part, which evens out the
# two workers' ends
printf '%s\n' asan fuzz examples ray no-data swift-part > "$QUEUE"
worker tsan &
TWO=$!
# The openai and browser client tests mostly wait (67 of their 204 s were CPU in the last CI run: a browser whose
# microphone plays WAV files in real time), so they run beside the two workers instead of holding one of them. Only
# they: a third lane that also held the Ray tests (whose daemons poll, uncounted) slowed everything beside it.
worker clients alone &
THREE=$!
trap 'kill -- -$TWO -$THREE 2>/dev/null; kill $TWO $THREE 2>/dev/null' INT TERM
"$STEP" setup make --no-print-directory setup-build
built=$?
echo $built > "$LOGS/setup.status"
tests=$built
[ $built -ne 0 ] || { "$STEP" "swift build" make --no-print-directory tests-build; tests=$?; }
echo $tests > "$LOGS/tests.status"
if [ $tests -eq 0 ]; then
  "$STEP" "swift test" "$@"
  one=$?
else
  one=$tests
fi
echo "==> the Swift suite ended with $one; the other jobs follow as they end"
worker "$(next_job)"
wait $TWO $THREE
failed=()
for log in "$LOGS"/*.log; do
  name=$(basename "$log" .log)
  echo "==> $name"
  cat "$log"
  status=$(cat "$LOGS/$name.status" 2>/dev/null || echo "not run")
  echo "==> $name ended with $status"
  [ "$status" = 0 ] || failed+=("$name")
done
[ -s "$QUEUE" ] && failed+=("never started: $(tr '\n' ' ' < "$QUEUE")")
[ $built -eq 0 ] || failed+=("setup")
[ $built -ne 0 ] || [ $tests -eq 0 ] || failed+=("swift build")
[ $tests -ne 0 ] || [ $one -eq 0 ] || failed+=("swift test")
[ ${#failed[@]} -eq 0 ] || { echo "==> failed: ${failed[*]}"; exit 1; }
