#!/usr/bin/env bash
# Other speakers for voice enrolment to train against, made with espeak-ng's voices and variants
# (idempotent: an existing complete set is kept). usage: make-background-voices.sh OUT_DIR
set -euo pipefail
OUT=$1
VOICES=(en-us en-gb en-gb-scotland en-gb-x-rp en-029 en-us-nyc en-gb-x-gbclan en-gb-x-gbcwmd)
VARIANTS=(m1 m2 m3 m4 m5 m6 m7 f1 f2 f3 f4 f5)
SENTENCES=(
  "The early train was late again, so we walked to the office through the park."
  "Could you send me the figures for last month before the meeting on Friday?"
  "My grandmother grew tomatoes, beans and sunflowers in her small garden."
)
[ -f "$OUT/.complete" ] && exit 0
rm -rf "$OUT.tmp" && mkdir -p "$OUT.tmp"
i=0
for voice in "${VOICES[@]}"; do
  # two variants per accent, rotating through them, so male and female voices are both present
  for v in "${VARIANTS[$((i % 12))]}" "${VARIANTS[$(((i + 7) % 12))]}"; do
    speaker="$voice+$v"
    mkdir -p "$OUT.tmp/$speaker"
    for s in 0 1 2; do
      espeak-ng -v "$speaker" -s $((140 + 10 * (i % 4))) -w "$OUT.tmp/$speaker/$s.wav" "${SENTENCES[$s]}"
    done
    i=$((i + 1))
  done
done
touch "$OUT.tmp/.complete"
rm -rf "$OUT" && mv "$OUT.tmp" "$OUT"
