#!/usr/bin/env bash
# make bench: installs faster-whisper (pinned, hash-checked) into its own venv, then runs the
# side-by-side sound classification and transcription benchmarks. Results: bench/results/ and a table to paste into BENCHMARKS.md.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
EARSHOT_HOME=${EARSHOT_HOME:-$HOME/.cache/earshot}
VENV="$EARSHOT_HOME/bench-venv"
want=$(sha256sum "$ROOT/scripts/lock/bench-requirements.txt" | cut -d' ' -f1)
if [ "$(cat "$VENV/.earshot-stamp" 2>/dev/null)" != "$want" ]; then
  echo "==> installing faster-whisper for the comparison into $VENV"
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install -q --disable-pip-version-check --no-deps --require-hashes -r "$ROOT/scripts/lock/bench-requirements.txt"
  echo "$want" > "$VENV/.earshot-stamp"
fi
# Resemblyzer (voice benchmark) in a venv of its own: it needs torch, whose CPU build is found in
# /opt/wheels on the project's machines; where it cannot be installed the voice benchmark says so
RZ="$EARSHOT_HOME/resemblyzer-venv"
want=$(sha256sum "$ROOT/scripts/lock/resemblyzer-requirements.txt" | cut -d' ' -f1)
if [ "$(cat "$RZ/.earshot-stamp" 2>/dev/null)" != "$want" ]; then
  echo "==> installing Resemblyzer for the comparison into $RZ"
  links=(); [ -d /opt/wheels ] && links=(--find-links /opt/wheels)
  python3 -m venv "$RZ" && "$RZ/bin/pip" install -q --disable-pip-version-check --no-deps --require-hashes "${links[@]}" \
    -r "$ROOT/scripts/lock/resemblyzer-requirements.txt" && echo "$want" > "$RZ/.earshot-stamp" \
    || echo "could not install Resemblyzer: the voice benchmark runs without it" >&2
fi
# a real two-speaker recording with a reference RTTM, for the diarization benchmark (data inside a wheel)
"$VENV/bin/pip" download -q --disable-pip-version-check --no-deps --require-hashes -r "$ROOT/scripts/lock/bench-data.txt" \
  -d "$EARSHOT_HOME/downloads" || echo "could not download pyannote's sample: the diarization benchmark runs without it" >&2
# every figure depends on the CPU (int8 kernels differ between AVX2, AVX-512 and VNNI): say which one ran them
echo "==> CPU: $(lscpu | sed -n 's/^Model name:[[:space:]]*//p' | head -n 1), $(nproc) cores;" \
  "flags: $(grep -m1 -o -w -E 'avx2|avx512f|avx512_vnni|avx_vnni|amx_int8' /proc/cpuinfo | sort -u | tr '\n' ' ')"
# each benchmark reports on its own: one failing does not hide the others
status=0
"$VENV/bin/python" "$ROOT/bench/sound.py" || status=1
"$VENV/bin/python" "$ROOT/bench/voice.py" || status=1
"$VENV/bin/python" "$ROOT/bench/voice_robustness.py" || status=1
# who spoke when: synthetic LibriSpeech conversations, earshot diarize vs the Resemblyzer d-vector recipe
"$VENV/bin/python" "$ROOT/bench/diarization.py" || status=1
"$VENV/bin/python" "$ROOT/bench/named_diarization.py" || status=1
"$VENV/bin/python" "$ROOT/bench/people.py" || status=1
"$VENV/bin/python" "$ROOT/bench/notes.py" || status=1
"$VENV/bin/python" "$ROOT/bench/search_quality.py" || status=1
python3 "$ROOT/bench/llm.py" || status=1
python3 "$ROOT/bench/owners.py" --audio || status=1
python3 "$ROOT/bench/ask.py" || status=1
python3 "$ROOT/bench/import.py" || status=1
python3 "$ROOT/bench/server.py" || status=1
python3 "$ROOT/bench/spinning.py" || status=1
# OpenAI's Realtime transcription over the WebSocket, through the openai client (its venv has openai[realtime]),
# beside the pages' own live API in the same run
"$EARSHOT_HOME/client-venv/bin/python" "$ROOT/bench/realtime.py" --conversation || status=1
"$VENV/bin/python" "$ROOT/bench/transcription.py" "$@" || status=1
# live final lines against the same utterances transcribed as files, and the final lines' delay
"$VENV/bin/python" "$ROOT/bench/live.py" || status=1
# the same utterances under steady ESC-10 backgrounds at 2.5-17.5 dB SNR, one pass
"$VENV/bin/python" "$ROOT/bench/transcription.py" --noise --runs 1 --out "$ROOT/bench/results/noisy" || status=1
"$VENV/bin/python" "$ROOT/bench/transcription.py" --noise --noise-margins --runs 1 --out "$ROOT/bench/results/noisy-margins" || status=1
# word times against known boundaries (espeak-ng words joined with known pauses) and faster-whisper's word_timestamps
"$VENV/bin/python" "$ROOT/bench/word_timing.py" || status=1
# archives: the CLI, earshot batch, shards and earshot_ray on one and two local Ray nodes, the same files
"$EARSHOT_HOME/ray-venv/bin/python" -W ignore "$ROOT/bench/archive.py" || status=1
# two hours of 44.1 kHz stereo through each system once (about 14 minutes): peak memory and time
"$VENV/bin/python" "$ROOT/bench/long_recording.py" || status=1
exit $status
