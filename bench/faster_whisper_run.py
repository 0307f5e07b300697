#!/usr/bin/env python3
"""Transcribe files with faster-whisper (the comparison side of `make bench`).

usage: faster_whisper_run.py MODEL_DIR THREADS BEAM FILE...   -> JSON {"load_s":..., "texts": {file: text}} on stdout
MODEL_DIR is the same CTranslate2 model Earshot converts from; int8 compute, CPU, English.
"""
import json
import sys
import time

from faster_whisper import WhisperModel


def main():
    model_dir, threads, beam, files = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4:]
    start = time.perf_counter()
    model = WhisperModel(model_dir, device="cpu", compute_type="int8", cpu_threads=threads, num_workers=1)
    load = time.perf_counter() - start
    texts = {}
    for path in files:
        segments, _ = model.transcribe(path, language="en", beam_size=beam, vad_filter=False)
        texts[path] = " ".join(s.text.strip() for s in segments)
    json.dump({"load_s": load, "texts": texts}, sys.stdout)


if __name__ == "__main__":
    main()
