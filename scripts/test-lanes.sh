#!/usr/bin/env bash
# `make test` after setup's installing: its jobs on three workers at once, each worker taking the next job as it
# finishes one. One after another the steps left a core idle 29% of the time, and on two workers still 18% (tests
# waiting on real-time audio, sockets, a language model; the browser tests feed the fake microphone in real time),
# while the Swift suite alone, one process, was the longest chain (setup 161 s + 966 s of the 1,361 s run). So:
#   worker 1: setup's build and checks (`make setup-build`), the suite's build, then its tests as two processes of
#             the same bundle, by test target: the second half started beside it at once, the first half with its
#             output live (a run that is stopped shows the test it was in); then the queue;
#   worker 2: the thread-sanitizer build and suite, then the queue;
#   worker 3: the fuzzers (their build, then short passes), then the queue: the openai/browser client tests, the Ray
#             tests, the address-sanitizer build and suite, the Examples package.
# The builds start at once, beside setup's (their own build folders; they need only what setup installed); every
# job's tests wait for setup's checks to pass. The jobs share nothing but the installed models. Nothing asserts a
# time, so sharing the cores only makes each slower. Every job but the first half keeps its output in
# .build/test-logs/JOB.log, printed once all are done. Each step's wall and CPU seconds end the log.
# The halves run the bundle themselves (SwiftPM holds a lock on .build for as long as a `swift test` runs, so two
# would run one after the other); SwiftPM lists the tests and runs them the same way.
# usage (from the Makefile): scripts/test-lanes.sh BIN-PATH TESTS-TO-SKIP SWIFT-TEST-COMMAND...
#   BIN-PATH: the build's products folder (`swift build --show-bin-path` with the build's flags); TESTS-TO-SKIP: a
#   regular expression over Target.Class/test (the tests the thread-sanitizer job runs), as `swift test --skip`
#   reads it; SWIFT-TEST-COMMAND: `swift test` with the build's flags
set -uo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
STEP="$ROOT/scripts/timed-step.sh"
LOGS="$ROOT/.build/test-logs"
QUEUE="$LOGS/queue"
BUNDLE="$1/EarshotPackageTests.xctest"
SKIP=$2
shift 2
# the suite's first half, by test target (wall seconds in the run of 2026-12-03: these 398, the others 445)
FIRST_HALF='EarshotSpeechTests|EarshotVoiceTests|EarshotLanguageTests|EarshotBatchTests'
cd "$ROOT"

job() {
  case "$1" in
    tsan) "$STEP" "tsan build" make --no-print-directory tsan-build && setup_done \
            && "$STEP" "tsan tests" make --no-print-directory tsan-run ;;
    asan) "$STEP" "asan build" make --no-print-directory asan-build && setup_done \
            && "$STEP" "asan tests" make --no-print-directory asan-quick-run ;;
    # their targets are servers and loaders checked for staying alive input after input
    fuzz) "$STEP" "fuzz build" scripts/fuzz.sh --build-only && setup_done \
            && "$STEP" fuzz scripts/fuzz.sh --prebuilt --runs 20000 fuzz-wav fuzz-profile fuzz-sound-model fuzz-http \
            && "$STEP" "fuzz websocket" scripts/fuzz.sh --prebuilt --runs 5000 fuzz-websocket ;;
    examples) setup_done && "$STEP" examples scripts/run-examples.sh ;;
    clients) setup_done && "$STEP" "client tests" scripts/run-client-tests.sh ;;
    ray) setup_done && "$STEP" "ray tests" scripts/run-ray-tests.sh ;;
    *) echo "no such job: $1"; return 2 ;;
  esac
}

# waits for worker 1's `make setup-build` (the CLI and the runner built, every runtime checked on this CPU, the
# background voices computed): true once it passed, false if it failed
setup_done() {
  while [ ! -s "$LOGS/setup.status" ]; do sleep 2; done
  [ "$(cat "$LOGS/setup.status")" = 0 ] || { echo "==> not run: setup's build and checks failed"; return 1; }
}

# the next job in the queue, or nothing when it is empty (every worker asks; the lock keeps each job to one)
next_job() {
  (
    flock 9
    head -n 1 "$QUEUE"
    sed -i 1d "$QUEUE"
  ) 9> "$QUEUE.lock"
}

# runs its first job, then whatever the queue holds; a job's exit status is kept beside its log
worker() {
  local name=$1
  while [ -n "$name" ]; do
    job "$name" > "$LOGS/$name.log" 2>&1 < /dev/null
    echo $? > "$LOGS/$name.status"
    name=$(next_job)
  done
}

# the suite's build (`swift test` with a filter nothing matches builds what `swift test` builds, testable imports
# as the flags say, and runs nothing), then its tests in two lists: the skipped ones out, the first half's targets
build_suite() {
  "$@" --filter 'no test is named this' || return 1
  [ -x "$BUNDLE" ] || { echo "no test bundle at $BUNDLE after the build"; return 1; }
  "$BUNDLE" --list-tests | grep -E '^[A-Za-z0-9_]+\.[A-Za-z0-9_]+/' | grep -Ev "$SKIP" > "$LOGS/swift.tests" || true
  [ -s "$LOGS/swift.tests" ] || { echo "the test bundle lists no tests"; return 1; }
  grep -E "^($FIRST_HALF)\." "$LOGS/swift.tests" > "$LOGS/swift-1.tests"
  grep -Ev "^($FIRST_HALF)\." "$LOGS/swift.tests" > "$LOGS/swift-2.tests"
  echo "==> $(wc -l < "$LOGS/swift.tests") tests in two processes: $(wc -l < "$LOGS/swift-1.tests") ($FIRST_HALF), $(wc -l < "$LOGS/swift-2.tests") (the other targets)"
}

# one half of the suite: the bundle given its tests (Target.Class/test, comma-separated), output line by line
run_half() {
  local list="$LOGS/swift-$1.tests"
  [ -s "$list" ] || { echo "no tests in $list"; return 1; }
  stdbuf -oL -eL "$BUNDLE" "$(paste -sd, "$list")"
}
# timed-step.sh runs them in a shell of its own
export -f build_suite run_half
export BUNDLE SKIP FIRST_HALF LOGS

rm -rf "$LOGS"
mkdir -p "$LOGS"
# the jobs that mostly wait (on a browser, on Ray's processes) early, so the builds at the end fill the cores
printf '%s\n' clients ray asan examples > "$QUEUE"
one=0 HALF=""
worker tsan &
TWO=$!
worker fuzz &
THREE=$!
trap 'kill -- -$TWO -$THREE 2>/dev/null; kill $TWO $THREE $HALF 2>/dev/null' INT TERM
# its output live, as the first half's (the other jobs wait for its status)
"$STEP" "setup build" make --no-print-directory setup-build < /dev/null 2>&1 | tee "$LOGS/setup.out"
echo "${PIPESTATUS[0]}" > "$LOGS/setup.status"
if setup_done && "$STEP" "swift build" build_suite "$@"; then
  { "$STEP" "swift tests 2" run_half 2 > "$LOGS/swift-2.log" 2>&1 < /dev/null; echo $? > "$LOGS/swift-2.status"; } &
  HALF=$!
  "$STEP" "swift tests 1" run_half 1 || one=$?
else
  one=1
fi
echo "==> the Swift suite's first half ended with $one; the other jobs follow as they end"
worker "$(next_job)"
wait $TWO $THREE $HALF
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
[ "$(cat "$LOGS/setup.status")" = 0 ] || failed+=("setup build")
[ $one -eq 0 ] || failed+=("swift test (build or first half)")
[ ${#failed[@]} -eq 0 ] || { echo "==> failed: ${failed[*]}"; exit 1; }
