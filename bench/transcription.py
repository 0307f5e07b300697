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
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def data_dir():
    base = os.environ.get("EARSHOT_DATA") or os.path.join(os.path.dirname(ROOT), "shared", "data")
    path = os.path.join(base, "speech")
    return path if os.path.isdir(path) else None


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
    ap.add_argument("--out", default=os.path.join(ROOT, "bench/results"))
    args = ap.parse_args()
    speech = data_dir()
    if speech is None:
        print("skipping: ../shared/data/speech (or $EARSHOT_DATA/speech) is not here")
        return
    home = os.environ.get("EARSHOT_HOME") or os.path.expanduser("~/.cache/earshot")
    refs = os.path.join(speech, "transcripts.tsv")
    files = sorted(os.path.join(speech, f) for f in os.listdir(speech) if f.endswith(".flac"))
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
    print(f"\n{len(files)} files, {rows[0]['audio_s']:.0f} s of audio, {args.threads} threads, "
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
