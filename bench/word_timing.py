#!/usr/bin/env python3
"""Word times, Earshot vs faster-whisper's word_timestamps, side by side in one run (make bench).

1. Known boundaries: sentences spoken a word at a time by espeak-ng, each word trimmed to its sound and joined
   with a pause of 0.1-0.9 s (seeded), clean and with white noise at 20 dB SNR; every word's true start and end
   are known to the sample. Built once under $EARSHOT_HOME/bench/word-timing.
2. Natural speech: agreement between the two systems on ../shared/data/speech (every fourth utterance).

Both run the same CTranslate2 weights (Earshot converted to ONNX) with the same threads, greedy decoding.
Reports the share of reference words found, the median and 95th percentile |start error| and the median
|end error|, in milliseconds.
"""
import argparse
import difflib
import json
import os
import random
import re
import statistics
import subprocess
import sys
import wave

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RATE = 16000
SENTENCES = [
    "the quick brown fox jumps over the lazy dog",
    "please call stella and ask her to bring these things with her from the store",
    "six spoons of fresh snow peas and five thick slabs of blue cheese",
    "we also need a small plastic snake and a big toy frog for the kids",
    "she can scoop these things into three red bags",
    "and we will go meet her wednesday at the train station",
    "the meeting moved to thursday afternoon in the north building",
    "remember to send the budget report before friday",
    "our new office has a garden on the roof",
    "the doctor said to drink more water and sleep early",
    "book a table for four people at seven thirty",
    "the river was cold but the children swam anyway",
    "turn left after the bridge and park behind the library",
    "my brother plays the violin every sunday morning",
    "the last train leaves the city at midnight",
    "a gentle breeze moved the curtains in the kitchen",
    "he painted the fence green and the door yellow",
    "bring your passport and two photographs to the interview",
    "the weather tomorrow will be sunny with light winds",
    "she wrote a letter to her grandmother in spain",
]


def data_home():
    return os.path.join(os.environ.get("EARSHOT_HOME") or os.path.expanduser("~/.cache/earshot"), "bench", "word-timing")


def speak(word, scratch):
    raw = os.path.join(scratch, "w.wav")
    out = os.path.join(scratch, "w16.wav")
    subprocess.run(["espeak-ng", "-v", "en-us", "-w", raw, word], check=True)
    subprocess.run(["sox", raw, "-r", str(RATE), "-c", "1", "-b", "16", out], check=True)
    with wave.open(out) as w:
        x = np.frombuffer(w.readframes(w.getnframes()), np.int16).astype(np.float32) / 32768
    loud = np.nonzero(np.abs(x) > np.abs(x).max() * 10 ** (-40 / 20))[0]
    return x[loud[0]:loud[-1] + 1]


def build():
    """The set with known boundaries: {name: [[word, start, end], ...]} and the WAV files."""
    home = data_home()
    index = os.path.join(home, "index.json")
    if os.path.exists(index):
        return json.load(open(index))
    os.makedirs(home, exist_ok=True)
    rng = random.Random(7)
    truth = {}
    for i, sentence in enumerate(SENTENCES):
        pieces, times, t = [np.zeros(int(0.5 * RATE), np.float32)], [], 0.5
        for word in sentence.split():
            audio = speak(word, home)
            times.append([word, round(t, 4), round(t + len(audio) / RATE, 4)])
            gap = rng.uniform(0.1, 0.9)
            pieces += [audio, np.zeros(int(gap * RATE), np.float32)]
            t += len(audio) / RATE + int(gap * RATE) / RATE
        clean = np.concatenate(pieces + [np.zeros(int(0.5 * RATE), np.float32)])
        noise = np.random.default_rng(i).standard_normal(len(clean)).astype(np.float32)
        noise *= np.sqrt(np.mean(clean[clean != 0] ** 2) / 10 ** (20 / 10))
        for kind, signal in (("clean", clean), ("noisy", clean + noise)):
            name = f"sentence{i:02d}-{kind}.wav"
            with wave.open(os.path.join(home, name), "wb") as w:
                w.setnchannels(1)
                w.setsampwidth(2)
                w.setframerate(RATE)
                w.writeframes((np.clip(signal, -1, 1) * 32767).astype(np.int16).tobytes())
            truth[name] = times
    json.dump(truth, open(index + ".tmp", "w"))
    os.replace(index + ".tmp", index)
    return truth


ONES = ("zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
        "seventeen eighteen nineteen").split()
TENS = "_ _ twenty thirty forty fifty sixty seventy eighty ninety".split()


def spoken(n):
    """A number under 1,000 in words, as `earshot score` reads digits ("7" is "seven", "30" is "thirty")."""
    if n < 20:
        return [ONES[n]]
    if n < 100:
        return [TENS[n // 10]] + (spoken(n % 10) if n % 10 else [])
    return [ONES[n // 100], "hundred"] + (spoken(n % 100) if n % 100 else [])


def norm(word):
    """A written word as the spoken words it stands for: case and punctuation dropped, digits read out
    ("7.30" is "seven thirty"), as `earshot score` normalises for WER."""
    text = word.lower().strip()
    if re.fullmatch(r"[^0-9]*[0-9]{1,3}([.:][0-9]{2})?[^0-9]*", text):
        return [w for part in re.findall(r"[0-9]+", text) for w in spoken(int(part))]
    text = re.sub(r"[^a-z0-9']", "", text)
    return [text] if text else []


def compare(reference, hypothesis):
    """Matched (reference, hypothesis) word pairs, aligned on their normalised text; a written word that stands
    for several spoken ones ("7.30") lends its times to each, and counts once."""
    def spell(words):
        return [(token, i) for i, w in enumerate(words) for token in norm(w[0])]
    a, b = spell(reference), spell(hypothesis)
    pairs = {}
    matcher = difflib.SequenceMatcher(None, [t for t, _ in a], [t for t, _ in b], autojunk=False)
    for block in matcher.get_matching_blocks():
        for k in range(block.size):
            pairs.setdefault(a[block.a + k][1], hypothesis[b[block.b + k][1]])
    return [(reference[i], h) for i, h in sorted(pairs.items())]


def summary(pairs, total):
    starts = [abs(r[1] - h[1]) * 1000 for r, h in pairs]
    ends = [abs(r[2] - h[2]) * 1000 for r, h in pairs]
    return {"found": len(pairs) / max(1, total), "start_median_ms": statistics.median(starts),
            "start_p95_ms": float(np.percentile(starts, 95)), "end_median_ms": statistics.median(ends),
            "starts_over_250ms": sum(s > 250 for s in starts), "pairs": len(pairs)}


def earshot_words(earshot, model, threads, files, beam=1):
    out = subprocess.run([earshot, "transcribe", "--json", "--words", "--no-progress", "--model", model, "--threads",
                          str(threads), "--beam-size", str(beam)] + files, check=True, capture_output=True, text=True).stdout
    docs = json.loads(out)
    docs = docs if isinstance(docs, list) else [docs]
    return {d["source"]: [[w["word"], w["start"], w["end"]] for s in d["segments"] for w in s.get("words") or []] for d in docs}


def faster_whisper_words(home, model, threads, files, beam=1):
    out = subprocess.run([sys.executable, os.path.join(ROOT, "bench/faster_whisper_run.py"), "--words",
                          os.path.join(home, "sources", f"whisper-{model}"), str(threads), str(beam)] + files,
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out)["words"]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--earshot", default=os.path.join(ROOT, ".build/release/earshot"))
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--models", default="base,tiny.en")
    ap.add_argument("--out", default=os.path.join(ROOT, "bench/results"))
    ap.add_argument("--earshot-only", action="store_true",
                    help="only Earshot on the known-gap sets (no faster-whisper, no natural speech): to try a change")
    ap.add_argument("--beam-size", type=int, default=1, help="beam width for both systems (1: greedy)")
    args = ap.parse_args()
    home = os.environ.get("EARSHOT_HOME") or os.path.expanduser("~/.cache/earshot")
    truth = build()
    files = [os.path.join(data_home(), name) for name in sorted(truth)]
    speech = os.path.join(os.environ.get("EARSHOT_DATA") or os.path.join(os.path.dirname(ROOT), "shared", "data"), "speech")
    natural = sorted(os.path.join(speech, f) for f in os.listdir(speech) if f.endswith(".flac"))[::4] if os.path.isdir(speech) else []
    natural = [] if args.earshot_only else natural
    rows = []
    for model in args.models.split(","):
        systems = {"Earshot": earshot_words(args.earshot, model, args.threads, files + natural, args.beam_size)}
        if not args.earshot_only:
            systems["faster-whisper"] = faster_whisper_words(home, model, args.threads, files + natural, args.beam_size)
        for kind in ("clean", "noisy"):
            names = [n for n in sorted(truth) if n.endswith(f"-{kind}.wav")]
            total = sum(len(truth[n]) for n in names)
            for system, words in systems.items():
                pairs = [p for n in names for p in compare(truth[n], words.get(os.path.join(data_home(), n), []))]
                rows.append({"model": model, "set": f"known gaps, {kind}", "system": system, **summary(pairs, total)})
        if natural:
            pairs = [p for f in natural for p in compare(systems["faster-whisper"].get(f, []), systems["Earshot"].get(f, []))]
            total = sum(len(systems["faster-whisper"].get(f, [])) for f in natural)
            rows.append({"model": model, "set": f"natural speech ({len(natural)} files): Earshot vs faster-whisper",
                         "system": "agreement", **summary(pairs, total)})
    os.makedirs(args.out, exist_ok=True)
    json.dump(rows, open(os.path.join(args.out, "word_timing.json"), "w"), indent=2)
    print(f"\n{len(files) // 2} sentences, {sum(len(v) for v in truth.values()) // 2} words each clean and noisy; "
          f"{args.threads} threads, " + ("greedy" if args.beam_size == 1 else f"beam {args.beam_size}") + "\n")
    print("| model | set | system | words found | median \\|start error\\| | 95th pct | median \\|end error\\| | starts > 250 ms off |")
    print("|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['model']} | {r['set']} | {r['system']} | {r['found'] * 100:.1f}% | {r['start_median_ms']:.0f} ms | "
              f"{r['start_p95_ms']:.0f} ms | {r['end_median_ms']:.0f} ms | {r['starts_over_250ms']} of {r['pairs']} |")


if __name__ == "__main__":
    main()
