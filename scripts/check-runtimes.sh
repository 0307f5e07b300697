#!/usr/bin/env bash
# Runs after setup has built Earshot: `earshot doctor` runs every network once, each in a child process, on
# this CPU. When a language check crashes (a signal inside llama.cpp), llama.cpp is rebuilt in its portable form
# (the AVX2 baseline, scripts/build-llama.sh portable), the choice is kept in runtime/llama-mode so later setups
# keep it, and the checks run again. Skipped when nothing they depend on changed since they last passed.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
EARSHOT_HOME=${EARSHOT_HOME:-$HOME/.cache/earshot}
BIN="$ROOT/.build/release/earshot"
STAMP="$EARSHOT_HOME/runtime/.checked-stamp"
state() {
  cat "$EARSHOT_HOME/runtime/llama/.earshot-stamp" "$EARSHOT_HOME/pkgconfig/.earshot-stamp" "$EARSHOT_HOME/models/catalogue.json" \
    "$BIN" "$ROOT/.build/release/earshot-language-runner" 2>/dev/null | sha256sum | cut -d" " -f1
  grep -m1 "^flags" /proc/cpuinfo | sha256sum | cut -d" " -f1
}
[ "$(cat "$STAMP" 2>/dev/null)" = "$(state)" ] && exit 0
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

check() { "$BIN" doctor --json > "$WORK/doctor.json" 2> "$WORK/doctor.err"; }
show() { python3 - "$WORK/doctor.json" <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
print(f"    CPU: {report['cpu']}; features: {' '.join(report['features'])}; llama.cpp: {report['llamaBuild']}")
for c in report["checks"]:
    print(f"    {'ok  ' if c['ok'] else 'FAIL'} {c['name']:<24} {c['detail']}")
PY
}
language_crashed() { python3 -c 'import json, sys; r = json.load(open(sys.argv[1]))
sys.exit(0 if any(c.get("signal") is not None and not c["ok"] and c["runtime"] == "llama.cpp" for c in r["checks"]) else 1)' "$WORK/doctor.json"; }

echo "==> checking every runtime on this CPU (earshot doctor)"
if check; then show; state > "$STAMP"; exit 0; fi
show || cat "$WORK/doctor.err" >&2
if language_crashed && [ "$(cat "$EARSHOT_HOME/runtime/llama-mode" 2>/dev/null)" != portable ]; then
  echo "==> llama.cpp crashed on this CPU: rebuilding it in its portable form (AVX2 baseline, no AVX-512)"
  echo portable > "$EARSHOT_HOME/runtime/llama-mode"
  "$ROOT/scripts/build-llama.sh" "$EARSHOT_HOME/downloads/llama_cpp_python-0.3.36.tar.gz" "$EARSHOT_HOME/runtime/llama" portable
  "$ROOT/scripts/install-native-libraries.sh" "$EARSHOT_HOME"
  if check; then show; state > "$STAMP"; echo "==> the portable llama.cpp runs here (kept in $EARSHOT_HOME/runtime/llama-mode)"; exit 0; fi
  show || true
fi
cat "$WORK/doctor.err" >&2
echo "a runtime does not run correctly on this CPU (above); nothing else was changed" >&2
exit 1
