#!/usr/bin/env bash
# Builds the libFuzzer targets in Fuzz/ (fuzzer + address sanitizers) and runs each: first on every input in
# Fuzz/Regressions/<target>/ (inputs that once crashed: they must not any more), then from Fuzz/Seeds/<target>/
# for --runs executions (default 1,000,000) with its corpus kept in $EARSHOT_HOME/fuzz/<target>.
# A crash stops the run; the input is saved in Fuzz/Regressions/<target>/ to become a regression test.
# usage: scripts/fuzz.sh [--build-only | --prebuilt] [--runs N] [target...]
#   --prebuilt: use the targets an earlier --build-only built (make test's fuzz job builds them first)
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
EARSHOT_HOME=${EARSHOT_HOME:-$HOME/.cache/earshot}
export PKG_CONFIG_PATH="$EARSHOT_HOME/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
RUNS=1000000
MERGE_ABOVE=${FUZZ_MERGE_ABOVE:-1000}
BUILD_ONLY=false
PREBUILT=false
if [ "${1:-}" = "--build-only" ]; then BUILD_ONLY=true; shift; fi
if [ "${1:-}" = "--prebuilt" ]; then PREBUILT=true; shift; fi
if [ "${1:-}" = "--runs" ]; then RUNS=$2; shift 2; fi
TARGETS=("$@")
[ ${#TARGETS[@]} -gt 0 ] || TARGETS=(fuzz-wav fuzz-profile fuzz-sound-model fuzz-http fuzz-websocket)

if ! $PREBUILT; then
  echo "==> building the fuzz targets (Fuzz/, libFuzzer + AddressSanitizer)"
  # SwiftPM's --sanitize=fuzzer links libFuzzer's main; -sanitize=fuzzer on the Swift code adds the coverage it steers by
  LOG=$(mktemp)
  # SwiftPM keeps the plan of an earlier build and misses files added to the path dependency ("cannot find 'X' in
  # scope"): plan afresh, as run-examples.sh does; what was compiled is still reused
  rm -f "$ROOT/Fuzz/.build/debug.yaml" "$ROOT"/Fuzz/.build/*/debug/description.json
  if ! swift build --package-path "$ROOT/Fuzz" --sanitize=fuzzer --sanitize=address \
      -Xswiftc -sanitize=fuzzer -Xswiftc -parse-as-library > "$LOG" 2>&1; then
    grep -E "error" "$LOG" | sort -u | head -30; rm -f "$LOG"; echo "FAIL: the fuzz targets do not build"; exit 1
  fi
  rm -f "$LOG"
fi
BIN=$(swift build --package-path "$ROOT/Fuzz" --sanitize=fuzzer --sanitize=address --show-bin-path)
$BUILD_ONLY && exit 0
# at exit LeakSanitizer checks the whole process, less what Fuzz/lsan-suppressions.txt explains (Swift's weak side
# tables, whose only pointer it cannot see)
export LSAN_OPTIONS="suppressions=$ROOT/Fuzz/lsan-suppressions.txt:print_suppressions=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}"

for target in "${TARGETS[@]}"; do
  regressions="$ROOT/Fuzz/Regressions/$target"
  corpus="$EARSHOT_HOME/fuzz/$target"
  mkdir -p "$regressions" "$corpus"
  # every pass adds inputs that reached new code to the kept corpus, and every pass first runs all of them (a count
  # that -runs includes): past MERGE_ABOVE files it is cut to the inputs that each reach something the others do not
  # (fuzz-websocket's 1,661 inputs of 30 sessions were 180 such). The merged corpus replaces the old one only whole.
  if [ "$(find "$corpus" -maxdepth 1 -type f | wc -l)" -gt "$MERGE_ABOVE" ]; then
    rm -rf "$corpus.merged" "$corpus.old" && mkdir -p "$corpus.merged"
    if "$BIN/$target" -merge=1 -detect_leaks=0 -rss_limit_mb=2048 -timeout=120 "$corpus.merged" "$corpus" > "$corpus.log" 2>&1; then
      echo "ok   $target: corpus merged, $(ls "$corpus" | wc -l) inputs to $(ls "$corpus.merged" | wc -l)"
      mv "$corpus" "$corpus.old" && mv "$corpus.merged" "$corpus" && rm -rf "$corpus.old"
    else
      rm -rf "$corpus.merged"  # the pass below runs the whole corpus and says what crashed
    fi
  fi
  if compgen -G "$regressions/*" > /dev/null; then
    "$BIN/$target" -detect_leaks=0 "$regressions"/* > "$corpus.log" 2>&1 || { tail -30 "$corpus.log"; echo "FAIL $target: a regression input crashes again"; exit 1; }
    echo "ok   $target: $(ls "$regressions" | wc -l) regression input(s)"
  fi
  # leaks are not checked after every input (-detect_leaks=0): the Swift runtime and Foundation fill caches as they go
  if ! "$BIN/$target" -runs="$RUNS" -max_len=65536 -rss_limit_mb=2048 -timeout=120 -detect_leaks=0 -print_final_stats=1 \
      -artifact_prefix="$regressions/" "$corpus" "$ROOT/Fuzz/Seeds/$target" > "$corpus.log" 2>&1; then
    grep -E "ERROR|Fatal|==[0-9]+==|artifact|Test unit written" "$corpus.log" | head -20
    echo "FAIL $target: crashed; the input is in $regressions/ (make it a test, fix, and keep it there)"
    exit 1
  fi
  echo "ok   $target: $(grep -m1 -o 'stat::number_of_executed_units: *[0-9]*' "$corpus.log" | grep -o '[0-9]*$') executions, no crash"
done
