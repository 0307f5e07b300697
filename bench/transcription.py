#!/usr/bin/env python3
"""Earshot vs faster-whisper on ../shared/data/speech, side by side in one run (make bench).

Both read the same files, with the same CTranslate2 Whisper weights (Earshot converted to int8 ONNX,
faster-whisper at compute_type=int8), the same thread count and the same decoding (greedy, and beam search
of 5 for the models in --beam-models). Each system runs as its own process per pass (model load included,
as a user experiences it); passes alternate between systems so machine noise hits both alike. Reports WER
(scored by `earshot score` for both) and median wall time.

Each system reads the files as its command-line tool does by default: faster-whisper one after another on all
the threads (`WhisperModel.transcribe` in a loop, num_workers=1), Earshot as `earshot transcribe` does, one file
per thread at once, each on its own copy of the model (`--earshot-jobs 1`: one after another, like faster-whisper).

`--noise` reads noisy copies of the same files instead: each utterance mixed with a steady background sound of
ESC-10 (rain, sea waves, a fire, a helicopter, a chainsaw, a clock), looped to its length, at a signal-to-noise ratio
drawn from the given list (seeded; the list of the noisy VCTK test set, 2.5-17.5 dB, by default). They are built once
under $EARSHOT_HOME/bench/noisy-speech-SNRS, with the same file names, so the same references score them.
`--noise-margins` also gives each copy 0.7-1.8 s of the background alone before and after the speech (seeded), as the
noisy VCTK set records its sentences: what a reader writes over noise that holds no speech counts as inserted words.
"""
import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def data_dir():
    base = os.environ.get("EARSHOT_DATA") or os.path.join(os.path.dirname(ROOT), "shared", "data")
    path = os.path.join(base, "speech")
    return path if os.path.isdir(path) else None


BACKGROUNDS = ("rain", "sea_waves", "crackling_fire", "helicopter", "chainsaw", "clock_tick")
RATE = 16000


def read_audio(path):
    raw = subprocess.run(["sox", path, "-t", "f32", "-r", str(RATE), "-c", "1", "-"], check=True, capture_output=True).stdout
    return np.frombuffer(raw, np.float32)


def noisy_copies(speech, files, snrs, home, margins=False):
    """The files mixed with ESC-10 backgrounds at the given SNRs (dB), built once: their paths. `margins`: with
    0.7-1.8 s of the background alone before and after the speech (the SNR is the speech's)."""
    folder = os.path.join(home, "bench", "noisy-" + ("margins-" if margins else "") + "speech-" + "-".join(f"{x:g}" for x in snrs))
    out = [os.path.join(folder, os.path.basename(f)) for f in files]
    done = os.path.join(folder, "built")
    if os.path.exists(done):
        return out
    esc = os.path.join(os.path.dirname(speech), "esc10")
    if not os.path.isdir(esc):
        sys.exit(f"--noise mixes in ESC-10's background sounds, which are not at {esc}: put the evaluation data there "
                 "(or set EARSHOT_DATA to its folder), or run without --noise")
    os.makedirs(folder, exist_ok=True)
    rng = random.Random(19)
    clips = {kind: sorted(os.path.join(esc, kind, f) for f in os.listdir(os.path.join(esc, kind))) for kind in BACKGROUNDS}
    for source, target in zip(files, out):
        speech_only = read_audio(source)
        lead, tail = (int(rng.uniform(0.7, 1.8) * RATE) for _ in range(2)) if margins else (0, 0)
        clean = np.concatenate([np.zeros(lead, np.float32), speech_only, np.zeros(tail, np.float32)])
        noise = read_audio(rng.choice(clips[rng.choice(BACKGROUNDS)]))
        noise = np.resize(noise, len(clean))  # looped to the utterance's length
        snr = rng.choice(snrs)
        gain = np.sqrt(np.mean(speech_only ** 2) / max(np.mean(noise ** 2), 1e-12) / 10 ** (snr / 10))
        mixed = clean + gain * noise
        mixed *= min(1.0, 0.99 / max(np.abs(mixed).max(), 1e-9))  # written with sox -R: its dither seeded, the same bytes every time
        subprocess.run(["sox", "-R", "-t", "f32", "-r", str(RATE), "-c", "1", "-", "-b", "16", target],
                       input=mixed.astype(np.float32).tobytes(), check=True)
    shutil.copy(os.path.join(speech, "transcripts.tsv"), os.path.join(folder, "transcripts.tsv"))
    open(done, "w").close()
    return out


def timed(cmd):
    start = time.perf_counter()
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return time.perf_counter() - start, out


def score(earshot, refs, hyp_path):
    out = subprocess.run([earshot, "score", "--json", refs, hyp_path], capture_output=True, text=True).stdout
    return json.loads(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--earshot", default=os.path.join(ROOT, ".build/release/earshot"))
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--models", default="tiny.en,base")
    ap.add_argument("--beam-models", default="base", help="models also run with beam search of 5")
    ap.add_argument("--earshot-jobs", type=int, default=None,
                    help="files Earshot reads at once (`earshot transcribe --jobs`; default: its own, one per thread)")
    ap.add_argument("--noise", nargs="?", const="2.5,7.5,12.5,17.5", default=None, metavar="SNRS",
                    help="read noisy copies of the files, each at one of these SNRs in dB (default 2.5,7.5,12.5,17.5)")
    ap.add_argument("--noise-margins", action="store_true",
                    help="with --noise: 0.7-1.8 s of the background alone before and after each utterance")
    ap.add_argument("--out", default=os.path.join(ROOT, "bench/results"))
    args = ap.parse_args()
    speech = data_dir()
    if speech is None:
        print("skipping: ../shared/data/speech (or $EARSHOT_DATA/speech) is not here")
        return
    home = os.environ.get("EARSHOT_HOME") or os.path.expanduser("~/.cache/earshot")
    refs = os.path.join(speech, "transcripts.tsv")
    files = sorted(os.path.join(speech, f) for f in os.listdir(speech) if f.endswith(".flac"))
    if args.noise:
        files = noisy_copies(speech, files, [float(x) for x in args.noise.split(",")], home, margins=args.noise_margins)
    os.makedirs(args.out, exist_ok=True)
    rows = []
    runs = [(m, 1) for m in args.models.split(",") if m] + [(m, 5) for m in args.beam_models.split(",") if m]
    for model, beam in runs:
        times = {"earshot": [], "faster-whisper": []}
        for run in range(args.runs):
            for system in times:
                if system == "earshot":
                    cmd = [args.earshot, "transcribe", "--json", "--no-progress", "--model", model,
                           "--threads", str(args.threads), "--beam-size", str(beam)] + (
                              ["--jobs", str(args.earshot_jobs)] if args.earshot_jobs else []) + files
                else:
                    cmd = [sys.executable, os.path.join(ROOT, "bench/faster_whisper_run.py"),
                           os.path.join(home, "sources", f"whisper-{model}"), str(args.threads), str(beam)] + files
                seconds, out = timed(cmd)
                times[system].append(seconds)
                if system == "earshot":
                    docs = json.loads(out)
                    audio = sum(d["duration"] for d in docs)
                else:
                    docs = [{"source": f, "text": t} for f, t in json.loads(out)["texts"].items()]
                hyp = os.path.join(args.out, f"{system}-{model}-beam{beam}.json")
                with open(hyp, "w") as f:
                    json.dump(docs, f)
                print(f"{model} beam {beam} {system} pass {run + 1}: {seconds:.1f} s", flush=True)
        for system, ts in times.items():
            wer = score(args.earshot, refs, os.path.join(args.out, f"{system}-{model}-beam{beam}.json"))
            rows.append({"model": model, "beam": beam, "system": system, "wer": wer["wer"], "files": wer["files"],
                         "median_s": statistics.median(ts), "times_s": ts, "audio_s": audio})
    with open(os.path.join(args.out, "transcription.json"), "w") as f:
        json.dump(rows, f, indent=2)
    noise = (f", ESC-10 backgrounds at {args.noise} dB SNR" + (", 0.7-1.8 s of it alone before and after" if args.noise_margins else "")
             if args.noise else "")
    print(f"\n{len(files)} files{noise}, {rows[0]['audio_s']:.0f} s of audio, {args.threads} threads, "
          f"median of {args.runs} passes\n")
    print("| model | decoding | system | WER | median time | real-time factor | Earshot time / faster-whisper time |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        fw = next(x for x in rows if x["model"] == r["model"] and x["beam"] == r["beam"] and x["system"] == "faster-whisper")
        ratio = f"{r['median_s'] / fw['median_s']:.2f}" if r["system"] == "earshot" else ""
        decoding = "greedy" if r["beam"] == 1 else f"beam {r['beam']}"
        print(f"| {r['model']} | {decoding} | {r['system']} | {r['wer'] * 100:.2f}% | {r['median_s']:.1f} s | "
              f"{r['median_s'] / r['audio_s']:.3f} | {ratio} |")


if __name__ == "__main__":
    main()
