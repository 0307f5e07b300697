#!/usr/bin/env python3
"""Importing recordings (make bench): does `earshot notes import` skip the same audio however it was copied, keep
every different recording, and what does the check cost?

A phone's folder is built from read speech (LibriSpeech files in ../shared/data/speech when present, else espeak-ng
sentences): each recording as an m4a memo with its creation time, then copies of some of them as a phone or a
person makes them: the same file renamed, and the same memo exported again as WAV, as a 48 kb/s MP3 and as a
24 kb/s Opus file. `earshot notes import FOLDER --json` runs on it in a private store, and the duplicates it names
are compared with the truth — beside the check a file-sync tool makes (the same bytes, SHA-256), which finds only
the renamed copies. The cost: import's seconds per file against `earshot notes add` of the same files (which
decodes each file but compares nothing), medians of 3 runs each.

Usage: import.py [--files N]
"""
import argparse
import glob
import hashlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EARSHOT = os.path.join(ROOT, ".build/release/earshot")
DATA = os.environ.get("EARSHOT_DATA") or os.path.join(ROOT, "..", "shared", "data")
SENTENCES = [
    "The weather was cold and clear on the morning of the meeting.",
    "She opened the window and listened to the birds in the garden.",
    "Please remember to bring your notebook to the next lesson.",
    "The train to the city leaves from the second platform.",
    "Our team finished the project a week before the deadline.",
    "He poured a cup of coffee and sat down to read the letter.",
    "The children played football in the park until it was dark.",
    "Fresh bread from the bakery smells wonderful in the morning.",
    "We need to order more paper for the printer upstairs.",
    "The museum is closed on Mondays but open late on Fridays.",
    "A small boat drifted slowly across the quiet lake.",
    "The doctor asked him to come back in two weeks.",
]
COPIES = [("renamed", None), ("wav", ["-c:a", "pcm_s16le"]), ("mp3", ["-c:a", "libmp3lame", "-b:a", "48k"]),
          ("opus", ["-c:a", "libopus", "-b:a", "24k"])]


def ffmpeg(source, target, codec, created=None):
    subprocess.run(["ffmpeg", "-v", "error", "-y", "-i", source] + (["-metadata", f"creation_time={created}"] if created else [])
                   + codec + [target], check=True)


def sources(count, work):
    """`count` recordings of read speech as WAV files."""
    real = sorted(glob.glob(os.path.join(DATA, "speech", "*.flac")))
    out = []
    for i in range(count):
        wav = os.path.join(work, f"source{i:02d}.wav")
        if len(real) >= count:
            subprocess.run(["sox", real[i], "-r", "16000", "-c", "1", wav], check=True)
        else:
            subprocess.run(["espeak-ng", "-w", wav, SENTENCES[i % len(SENTENCES)] + f" Item {i}."], check=True)
        out.append(wav)
    return out, "LibriSpeech read speech" if len(real) >= count else "espeak-ng sentences"


def build(count, folder, work):
    """The phone's folder; returns {file: the memo it is a copy of, or None}."""
    wavs, kind = sources(count, work)
    truth = {}
    for i, wav in enumerate(wavs):
        memo = os.path.join(folder, f"memo {i:02d}.m4a")
        ffmpeg(wav, memo, ["-c:a", "aac", "-b:a", "64k"], created=f"2025-04-{i + 1:02d}T09:00:00Z")
        truth[memo] = None
    for i in range(0, count, 2):  # every other memo copied once, the ways cycling
        memo = os.path.join(folder, f"memo {i:02d}.m4a")
        way, codec = COPIES[(i // 2) % len(COPIES)]
        if codec is None:
            copy = os.path.join(folder, "copies", f"memo {i:02d} (1).m4a")
            os.makedirs(os.path.dirname(copy), exist_ok=True)
            shutil.copyfile(memo, copy)
        else:
            copy = os.path.join(folder, "exported", f"memo {i:02d}.{way}")
            os.makedirs(os.path.dirname(copy), exist_ok=True)
            ffmpeg(memo, copy, codec)
        truth[copy] = memo
    return truth, kind


def timed(args, home):
    env = dict(os.environ, EARSHOT_HOME=home)
    started = time.time()
    done = subprocess.run([EARSHOT] + args, env=env, capture_output=True, text=True)
    return time.time() - started, done


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--files", type=int, default=24, help="recordings in the folder before the copies (default 24)")
    args = parser.parse_args()
    if not os.path.exists(EARSHOT):
        sys.exit(f"{EARSHOT} is missing: run make build")
    work = tempfile.mkdtemp(prefix="earshot-import-bench-")
    try:
        folder = os.path.join(work, "phone")
        os.makedirs(folder)
        truth, kind = build(args.files, folder, work)
        files = sorted(truth)
        copies = {f for f, of in truth.items() if of}
        import_times, add_times, results = [], [], None
        for run in range(3):
            home = os.path.join(work, f"home-import-{run}")
            seconds, done = timed(["notes", "import", folder, "--json"], home)
            import_times.append(seconds)
            results = json.loads(done.stdout)
            home = os.path.join(work, f"home-add-{run}")
            seconds, _ = timed(["notes", "add"] + files, home)
            add_times.append(seconds)
        skipped = {r["file"] for r in results if r["outcome"] == "duplicate"}
        failed = [r for r in results if r["outcome"] == "failed"]
        by_bytes, seen = set(), set()
        for f in files:  # the order import reads them in
            digest = hashlib.sha256(open(f, "rb").read()).hexdigest()
            (by_bytes.add(f) if digest in seen else seen.add(digest))
        per_way = {}
        for f in copies:
            way = "renamed" if f.endswith(".m4a") else os.path.splitext(f)[1][1:]
            found = per_way.setdefault(way, [0, 0, 0])
            found[0] += 1
            # a copy counts as found when it, or the memo it copies (whichever came first), was skipped
            found[1] += f in skipped or truth[f] in skipped
            found[2] += f in by_bytes or truth[f] in by_bytes
        wrong = [f for f in skipped if f not in copies and not any(truth[c] == f for c in copies)]
        cpu = subprocess.run(["sh", "-c", "lscpu | sed -n 's/^Model name:[[:space:]]*//p' | head -n 1"], capture_output=True,
                             text=True).stdout.strip()
        print(f"==> importing a phone's folder: {len(files)} files ({args.files} memos of {kind}, {len(copies)} copies); {cpu}")
        print("| copy | copies | earshot notes import skipped | same bytes (SHA-256) |")
        print("|---|---|---|---|")
        for way in ["renamed", "wav", "mp3", "opus"]:
            if way in per_way:
                n, found, hashed = per_way[way]
                print(f"| {way} | {n} | {found} | {hashed} |")
        print(f"different recordings skipped: {len(wrong)}; files that failed: {len(failed)}; notes made: "
              f"{sum(r['outcome'] == 'imported' for r in results)} of {args.files}")
        imp, add = statistics.median(import_times), statistics.median(add_times)
        print(f"time, median of 3: import {imp:.2f} s ({imp / len(files) * 1000:.0f} ms a file), notes add {add:.2f} s "
              f"({add / len(files) * 1000:.0f} ms a file): import/add = {imp / add:.2f}")
        return 0 if not wrong and not failed else 1
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
