#!/usr/bin/env bash
# Builds the Examples package (Earshot as a path dependency, no flags: SwiftPM's default debug build) and runs each
# example on speech synthesised with espeak-ng, checking what it prints. Needs `make setup` first (models, pkg-config files).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
EARSHOT_HOME=${EARSHOT_HOME:-$HOME/.cache/earshot}
export PKG_CONFIG_PATH="$EARSHOT_HOME/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

# the guides show these programs: each must hold its example's code exactly
for pair in transcription:transcribe-file sounds:classify-sound voices:verify-voice speakers:who-spoke notes:search-notes; do
  guide="$ROOT/docs/guide-${pair%%:*}.md" example="$ROOT/Examples/Sources/${pair##*:}/main.swift"
  python3 -c 'import sys; g, e = open(sys.argv[1]).read(), open(sys.argv[2]).read().rstrip("\n"); sys.exit(0 if "```swift\n" + e + "\n```" in g else 1)' \
    "$guide" "$example" || { echo "FAIL $guide does not show $example as it is"; exit 1; }
done
echo "==> the guides show the examples as they are"

echo "==> building Examples/ (a separate package that depends on Earshot by path)"
# SwiftPM keeps the plan of an earlier build and does not notice files added to a path dependency (the build
# then fails with "cannot find 'X' in scope"): plan afresh; what was compiled is still reused
rm -f "$ROOT/Examples/.build/debug.yaml" "$ROOT"/Examples/.build/*/debug/description.json
# the notes example runs its language model in earshot-language-runner, which must sit beside the program: a
# product of the Earshot dependency, built as any package using EarshotNotes would build it.
# In SwiftPM's default (debug) configuration, as `swift build` in a package that depends on Earshot builds it: the
# Earshot library from scratch took 34 s here (the optimised step: 169 s in a CI run, beside the other lane), and the
# examples ran in 40 s against 13 s (the networks are native code either way).
if ! { swift build --package-path "$ROOT/Examples" && \
       swift build --package-path "$ROOT/Examples" --product earshot-language-runner; } > "$WORK/build.log" 2>&1; then
  grep -E "error" "$WORK/build.log" | sort -u | head -40
  echo "FAIL: Examples/ does not build against the library"
  exit 1
fi
BIN=$(swift build --package-path "$ROOT/Examples" --show-bin-path)

say() { espeak-ng -v "$1" -s 150 -w "$WORK/$2" "$3"; }
expect() { # name, output file, extended regex it must match
  if grep -Eiq "$3" "$2"; then echo "ok   $1"; else echo "FAIL $1: output does not match /$3/:"; cat "$2"; exit 1; fi
}

say en-us memo.wav "Remember the budget meeting with the finance team on Thursday. We need the marketing numbers before then."
"$BIN/transcribe-file" "$WORK/memo.wav" > "$WORK/transcribe.out"
expect transcribe-file "$WORK/transcribe.out" "final: .*budget"
expect "transcribe-file (file)" "$WORK/transcribe.out" "\] .*finance"
expect "transcribe-file (words)" "$WORK/transcribe.out" "^ +[0-9]+\.[0-9]+– *[0-9]+\.[0-9]+ finance"

sox -n -r 16000 -c 1 "$WORK/tone.wav" synth 2 sine 1000 vol 0.5
"$BIN/classify-sound" "$WORK/tone.wav" > "$WORK/classify.out"
expect classify-sound "$WORK/classify.out" "^(Sine wave|Beep, bleep|Tuning fork|Dial tone|Busy signal|Whistle|Sound effect|Music)"

lines=("I would like to book a table for two people tomorrow evening at eight."
  "The children are playing in the garden while their parents cook dinner."
  "Every morning I take the bus to work and read the news on my phone."
  "We should paint the kitchen a brighter colour before the summer starts.")
for i in 0 1 2 3; do say en-us+m5 "alice$i.wav" "${lines[$i]} ${lines[$(((i + 2) % 4))]}"; done
"$BIN/verify-voice" "$WORK/profiles" alice "$WORK/alice3.wav" "$WORK/alice0.wav" "$WORK/alice1.wav" "$WORK/alice2.wav" > "$WORK/voice.out"
expect verify-voice "$WORK/voice.out" "alice\? yes"
expect "verify-voice (identify)" "$WORK/voice.out" "speaking: alice"

# two espeak-ng voices taking turns (the synthesiser's voices sound alike to speaker networks: their count is given).
# sox -R: the same samples every run (sox dithers its resampled output with a random seed otherwise, and these two
# voices are alike enough that which windows CAM++ groups together moved with that noise: 1 run in 2 failed)
say en-us+m5 turn0.wav "Good morning, I wanted to talk about the budget for the spring campaign."
say en-gb+f4 turn1.wav "Sure, I have the figures from last quarter here with me."
say en-us+m5 turn2.wav "Then let us move some of that money to the online adverts instead."
sox -R "$WORK/turn0.wav" "$WORK/turn1.wav" "$WORK/turn2.wav" -r 16000 -c 1 "$WORK/standup.wav"
"$BIN/who-spoke" "$WORK/standup.wav" 2 > "$WORK/who.out"
expect who-spoke "$WORK/who.out" "^SPEAKER_01: .*budget"
expect "who-spoke (second voice)" "$WORK/who.out" "^SPEAKER_02: .*figures"

"$BIN/search-notes" "$WORK/memo.wav" "finance team" "$WORK/notes" > "$WORK/notes.out"
expect search-notes "$WORK/notes.out" "^ready: "
expect "search-notes (search)" "$WORK/notes.out" "^1 .*: "
echo "==> every example ran"

