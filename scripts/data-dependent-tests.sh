#!/usr/bin/env bash
# Prints a `swift test --filter` pattern for the tests that read ../shared/data (SharedData, or FloatReference.clips,
# which adds its recordings): a test method that reads it itself, or the whole class where a helper of the class
# does. make test runs them once more with the data pointed nowhere (scripts/test-lanes.sh, job no-data), as on a
# clone alone, so a fallback that fails there fails here too. Found from the sources, so a new such test is in it
# without a list to keep.
set -euo pipefail
cd "$(dirname "$0")/.."
find Tests -name '*.swift' -not -path 'Tests/Support/*' -print0 | sort -z | xargs -0 awk '
  FNR == 1 { class = ""; fn = "" }
  match($0, /(final )?class [A-Za-z0-9_]+: XCTestCase/) { split(substr($0, RSTART, RLENGTH), w, /[ :]+/); class = (w[1] == "final" ? w[3] : w[2]) }
  match($0, /func [A-Za-z0-9_]+\(/) { fn = substr($0, RSTART + 5, RLENGTH - 6) }
  /SharedData\.|FloatReference\.clips/ && class != "" {
    if (fn ~ /^test/) print class "/" fn; else print class "/"
  }' | sort -u | awk -F/ '
  { if ($2 == "") whole[$1] = 1; else methods[$1] = methods[$1] " " $2 }
  END {
    for (c in whole) out = out (out ? "|" : "") "\\." c "/"
    for (c in methods) if (!(c in whole)) { n = split(methods[c], m, " "); for (i = 1; i <= n; i++) out = out (out ? "|" : "") "\\." c "/" m[i] "$" }
    print out
  }'
