#!/usr/bin/env python3
"""ONNX Runtime's waiting threads: spinning (EARSHOT_ORT_SPIN=1) against sleeping (Earshot's default), make bench.

One transcription alone, and two side by side on the same cores (base and tiny.en, as a second user, a test lane
or a Ray actor would share them), each way in the same run, passes alternating. Reports median wall time, the CPU
seconds of each case, and the ratio sleeping / spinning (below 1: sleeping is faster)."""
import argparse
import os
import resource
import statistics
import subprocess
import sys
import time

from transcription import data_dir  # the one place that finds ../shared/data/speech

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run(commands, spin):
    """Wall seconds for the commands run side by side, and the CPU seconds they took together."""
    env = dict(os.environ)
    env.pop("EARSHOT_ORT_SPIN", None)
    if spin:
        env["EARSHOT_ORT_SPIN"] = "1"
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    running = [subprocess.Popen(c, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) for c in commands]
    if any(p.wait() != 0 for p in running):
        raise SystemExit(f"a transcription failed: {commands}")
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--earshot", default=os.path.join(ROOT, ".build/release/earshot"))
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--files", type=int, default=30)
    args = ap.parse_args()
    speech = data_dir()
    if speech is None:
        print("skipping the spinning benchmark: ../shared/data/speech (or $EARSHOT_DATA/speech) is not here")
        return 0
    files = sorted(os.path.join(speech, f) for f in os.listdir(speech) if f.endswith(".flac"))[::6][:args.files]
    base = [args.earshot, "transcribe", "--no-progress", "--threads", "2", "--model", "base", *files]
    tiny = [args.earshot, "transcribe", "--no-progress", "--threads", "2", "--model", "tiny.en", *files]
    cases = {"base alone": [base], "base and tiny.en side by side": [base, tiny]}
    walls, cpus = {}, {}
    for _ in range(args.runs):
        for case, commands in cases.items():
            for spin in (True, False):
                wall, cpu = run(commands, spin)
                walls.setdefault((case, spin), []).append(wall)
                cpus.setdefault((case, spin), []).append(cpu)
    print(f"==> ONNX Runtime threads spinning or sleeping: {len(files)} files, 2 threads each, {args.runs} passes")
    print("| case | spinning: wall | sleeping: wall | ratio | spinning: CPU s | sleeping: CPU s |")
    print("|---|---|---|---|---|---|")
    for case in cases:
        spin, sleep = (statistics.median(walls[(case, s)]) for s in (True, False))
        cpu_spin, cpu_sleep = (statistics.median(cpus[(case, s)]) for s in (True, False))
        print(f"| {case} | {spin:.1f} s | {sleep:.1f} s | {sleep / spin:.2f} | {cpu_spin:.0f} | {cpu_sleep:.0f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
