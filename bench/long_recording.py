#!/usr/bin/env python3
"""Peak memory and time on one long recording: Earshot vs faster-whisper, side by side (make bench).

The recording is two hours (by default) of 44.1 kHz stereo 16-bit WAV, 1.27 GB: the 174 utterances of
../shared/data/speech with a second of silence after each, converted with sox and repeated. Earshot reads
it a block at a time; faster-whisper decodes the whole file into memory first. Both run the base model
(int8) on the same threads, greedy, as their own process; peak RSS is the process's own (wait4's
ru_maxrss), time is wall clock including model load. `--earshot-jobs default,1` adds a row for Earshot reading one
window at a time (`--jobs 1`) beside its default (one window per thread at once).
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def speech_dir():
    base = os.environ.get("EARSHOT_DATA") or os.path.join(os.path.dirname(ROOT), "shared", "data")
    path = os.path.join(base, "speech")
    return path if os.path.isdir(path) else None


def long_recording(speech, minutes, home):
    """Builds (once) the long WAV from the speech clips; returns its path."""
    folder = os.path.join(home, "cache", "bench")
    os.makedirs(folder, exist_ok=True)
    target = os.path.join(folder, f"speech-{minutes}min-44k-stereo.wav")
    if os.path.exists(target):
        return target
    print(f"==> building a {minutes}-minute 44.1 kHz stereo recording in {target}", flush=True)
    parts = []
    for i, name in enumerate(sorted(f for f in os.listdir(speech) if f.endswith(".flac"))):
        part = os.path.join(folder, f".part-{i:03d}.wav")
        subprocess.run(["sox", os.path.join(speech, name), "-r", "44100", "-c", "2", "-b", "16", part, "pad", "0", "1.0"],
                       check=True, capture_output=True)
        parts.append(part)
    one = os.path.join(folder, ".one-pass.wav")
    subprocess.run(["sox"] + parts + [one], check=True, capture_output=True)
    seconds = float(subprocess.run(["soxi", "-D", one], check=True, capture_output=True, text=True).stdout)
    repeats = int(minutes * 60 // seconds) + 1
    partial = target + ".partial.wav"
    subprocess.run(["sox"] + [one] * repeats + [partial, "trim", "0", str(minutes * 60)], check=True, capture_output=True)
    os.replace(partial, target)
    for path in parts + [one]:
        os.remove(path)
    return target


def peak_rss_mb(cmd):
    """Runs a command; returns (wall seconds, peak RSS in MB of that process alone, stdout)."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    chunks = []
    for chunk in iter(lambda: proc.stdout.read(1 << 16), b""):
        chunks.append(chunk)
    _, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - start
    if status != 0:
        sys.exit(f"{cmd[0]} failed (status {status})")
    return seconds, usage.ru_maxrss / 1024, b"".join(chunks)


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--earshot", default=os.path.join(ROOT, ".build/release/earshot"))
    ap.add_argument("--minutes", type=int, default=120)
    ap.add_argument("--runs", type=int, default=1)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--model", default="base")
    ap.add_argument("--only", choices=["earshot", "faster-whisper"], help="run one side only")
    ap.add_argument("--earshot-jobs", default="default",
                    help="Earshot's --jobs, comma-separated for one row each: 'default' (one window per thread at once), "
                         "1 (one window at a time on all the threads), …")
    ap.add_argument("--out", default=os.path.join(ROOT, "bench/results"))
    args = ap.parse_args()
    speech = speech_dir()
    if speech is None:
        print("skipping: ../shared/data/speech (or $EARSHOT_DATA/speech) is not here")
        return
    home = os.environ.get("EARSHOT_HOME") or os.path.expanduser("~/.cache/earshot")
    wav = long_recording(speech, args.minutes, home)
    systems = {}
    if args.only != "faster-whisper":
        for jobs in args.earshot_jobs.split(","):
            name = "earshot" if jobs == "default" else f"earshot --jobs {jobs}"
            systems[name] = [args.earshot, "transcribe", "--json", "--no-progress", "--model", args.model,
                             "--threads", str(args.threads)] + ([] if jobs == "default" else ["--jobs", jobs]) + [wav]
    if args.only != "earshot":
        systems["faster-whisper"] = [sys.executable, os.path.join(ROOT, "bench/faster_whisper_run.py"),
                                     os.path.join(home, "sources", f"whisper-{args.model}"), str(args.threads), "1", wav]
    results = {name: {"seconds": [], "peak_rss_mb": [], "words": 0} for name in systems}
    for run in range(args.runs):
        for name, cmd in systems.items():
            seconds, rss, out = peak_rss_mb(cmd)
            doc = json.loads(out)
            text = doc["text"] if name.startswith("earshot") else next(iter(doc["texts"].values()))
            results[name]["seconds"].append(seconds)
            results[name]["peak_rss_mb"].append(rss)
            results[name]["words"] = len(text.split())
            print(f"{name} pass {run + 1}: {seconds:.1f} s, peak RSS {rss:.0f} MB, {len(text.split())} words", flush=True)
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "long_recording.json"), "w") as f:
        json.dump({"minutes": args.minutes, "model": args.model, "threads": args.threads, "results": results}, f, indent=2)
    print(f"\n{args.minutes}-minute 44.1 kHz stereo WAV ({os.path.getsize(wav) / 1e9:.2f} GB), Whisper {args.model}, "
          f"{args.threads} threads, median of {args.runs}:")
    print("| system | peak RSS | wall time | words |\n|---|---|---|---|")
    for name, r in results.items():
        print(f"| {name} | {statistics.median(r['peak_rss_mb']):.0f} MB | {statistics.median(r['seconds']):.0f} s | {r['words']} |")
    if "faster-whisper" in results:
        f = results["faster-whisper"]
        for name, e in results.items():
            if name.startswith("earshot"):
                print(f"{name} / faster-whisper: peak RSS {statistics.median(e['peak_rss_mb']) / statistics.median(f['peak_rss_mb']):.2f}×, "
                      f"time {statistics.median(e['seconds']) / statistics.median(f['seconds']):.2f}×")


if __name__ == "__main__":
    main()
