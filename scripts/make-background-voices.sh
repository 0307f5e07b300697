#!/usr/bin/env bash
# Other speakers for voice enrolment to train against (idempotent: an existing complete set of this
# version is kept). usage: make-background-voices.sh OUT_DIR [KLETTRES_DIR]
#  - real voices: KLettres (Debian klettres-data) has letters and syllables read by a different native
#    speaker for each of ~20 languages; each speaker's recordings are joined into 3 clips of 10 files.
#    A head trained only against synthetic voices learns "synthetic vs natural" and accepts any real
#    impostor (read-speech EER 3.7% vs 0.0% with these voices added; BENCHMARKS.md).
#  - synthetic voices: espeak-ng's English accents and variants, 16 speakers.
set -euo pipefail
OUT=$1
KLETTRES=${2:-/usr/share/klettres}
VERSION=2
VOICES=(en-us en-gb en-gb-scotland en-gb-x-rp en-029 en-us-nyc en-gb-x-gbclan en-gb-x-gbcwmd)
VARIANTS=(m1 m2 m3 m4 m5 m6 m7 f1 f2 f3 f4 f5)
SENTENCES=(
  "The early train was late again, so we walked to the office through the park."
  "Could you send me the figures for last month before the meeting on Friday?"
  "My grandmother grew tomatoes, beans and sunflowers in her small garden."
)
[ "$(cat "$OUT/.complete" 2>/dev/null)" = "$VERSION" ] && exit 0
rm -rf "$OUT.tmp" && mkdir -p "$OUT.tmp"
for dir in "$KLETTRES"/*/; do
  mapfile -t files < <(find "$dir" -name '*.ogg' | sort | head -30)
  [ ${#files[@]} -ge 10 ] || continue
  speaker="$OUT.tmp/klettres-$(basename "$dir")"
  mkdir -p "$speaker"
  for clip in 0 1 2; do
    raw="$speaker/$clip.raw"
    : > "$raw"
    for f in "${files[@]:$((clip * 10)):10}"; do
      ffmpeg -v error -nostdin -i "$f" -ar 16000 -ac 1 -f s16le - >> "$raw"
    done
    [ -s "$raw" ] && ffmpeg -v error -nostdin -y -f s16le -ar 16000 -ac 1 -i "$raw" "$speaker/$clip.wav"
    rm -f "$raw"
  done
done
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
echo "$VERSION" > "$OUT.tmp/.complete"
rm -rf "$OUT" && mv "$OUT.tmp" "$OUT"
