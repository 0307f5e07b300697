#!/usr/bin/env python3
"""Synthetic conversations with known turns, for diarization tests and benchmarks.

usage: tools/conversations.py OUT_DIR [--count N] [--seed S] [--speakers 2-4] [--overlap P]

From ../shared/data/librispeech-speakers (one read utterance per speaker): each conversation takes 2-4
speakers, cuts each one's utterance at its pauses into 2-3 turns, and lays the turns out so that no
speaker follows themself, with gaps of 0.1-0.8 s (and, with probability P, an overlap of up to 0.4 s).
Writes OUT_DIR/convNN.wav (16 kHz mono) and OUT_DIR/convNN.rttm (each turn from its first to its last
sound, pauses inside a turn included, as people annotate turns). Deterministic for a seed.
"""
import argparse
import csv
import os
import random
import subprocess
import sys
import wave

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA = os.environ.get("EARSHOT_DATA") or os.path.join(ROOT, "..", "shared", "data")
RATE = 16000


def read(path):
    raw = subprocess.run(["sox", path, "-t", "raw", "-r", str(RATE), "-e", "floating-point", "-b", "32", "-c", "1", "-"],
                         check=True, capture_output=True).stdout
    return np.frombuffer(raw, dtype=np.float32).copy()


def loud_frames(x):
    """10 ms frames within 35 dB of the loudest."""
    n = len(x) // 160
    e = (x[: n * 160].reshape(n, 160) ** 2).mean(axis=1)
    return e > e.max() * 10 ** -3.5


def pieces(x, parts):
    """The utterance trimmed to its sound and cut at its longest pauses into `parts` pieces."""
    loud = loud_frames(x)
    idx = np.flatnonzero(loud)
    first, last = idx[0], idx[-1] + 1
    # pauses: runs of quiet frames inside the sound, longest first
    pauses = []
    run = None
    for f in range(first, last):
        if not loud[f]:
            run = f if run is None else run
        elif run is not None:
            if f - run >= 10:
                pauses.append((f - run, run, f))
            run = None
    cuts = sorted(sorted(pauses, reverse=True)[: parts - 1], key=lambda p: p[1])
    bounds, start = [], first
    for _, a, b in cuts:
        bounds.append((start, a))
        start = b
    bounds.append((start, last))
    return [x[a * 160:b * 160] for a, b in bounds if b - a >= 50]


def conversation(speakers, rng, overlap):
    turns = []
    for name, x in speakers:
        for p in pieces(x, rng.choice([2, 3])):
            turns.append((name, p))
    # order: shuffle until no speaker follows themself (greedy repair)
    for _ in range(200):
        rng.shuffle(turns)
        if all(turns[i][0] != turns[i + 1][0] for i in range(len(turns) - 1)):
            break
    audio = np.zeros(int(RATE * 0.5), dtype=np.float32)
    reference = []
    cursor = len(audio)
    for i, (name, p) in enumerate(turns):
        if i > 0:
            if rng.random() < overlap:
                cursor -= int(RATE * rng.uniform(0.1, 0.4))
            else:
                cursor += int(RATE * rng.uniform(0.1, 0.8))
        end = cursor + len(p)
        if end > len(audio):
            audio = np.concatenate([audio, np.zeros(end - len(audio), dtype=np.float32)])
        audio[cursor:end] += p / max(1e-6, np.abs(p).max()) * 0.5
        reference.append((cursor / RATE, len(p) / RATE, name))
        cursor = end
    audio = np.concatenate([audio, np.zeros(int(RATE * 0.5), dtype=np.float32)])
    return np.clip(audio, -1, 1), reference


def write(out, stem, audio, reference):
    with wave.open(os.path.join(out, stem + ".wav"), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(RATE)
        w.writeframes((audio * 32767).astype("<i2").tobytes())
    with open(os.path.join(out, stem + ".rttm"), "w") as f:
        for start, duration, name in reference:
            f.write(f"SPEAKER {stem} 1 {start:.3f} {duration:.3f} <NA> <NA> {name} <NA> <NA>\n")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--count", type=int, default=12)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--speakers", default="2-4")
    ap.add_argument("--overlap", type=float, default=0.1)
    args = ap.parse_args()
    manifest = os.path.join(DATA, "librispeech-speakers", "manifest.csv")
    if not os.path.exists(manifest):
        print(f"no {manifest}: the conversations need ../shared/data (or EARSHOT_DATA)", file=sys.stderr)
        return 2
    rows = list(csv.DictReader(open(manifest)))
    rows = [r for r in rows if float(r["duration_s"]) >= 8]
    lo, hi = (int(v) for v in args.speakers.split("-"))
    rng = random.Random(args.seed)
    os.makedirs(args.out, exist_ok=True)
    for n in range(args.count):
        chosen = rng.sample(rows, rng.randint(lo, hi))
        speakers = [(r["speaker"], read(os.path.join(DATA, "librispeech-speakers", r["path"]))) for r in chosen]
        audio, reference = conversation(speakers, rng, args.overlap)
        write(args.out, f"conv{n:02d}", audio, reference)
        print(f"conv{n:02d}: {len(chosen)} speakers, {len(reference)} turns, {len(audio) / RATE:.1f} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
