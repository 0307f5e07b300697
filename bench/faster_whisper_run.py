#!/usr/bin/env python3
"""Transcribe files with faster-whisper (the comparison side of `make bench`).

usage: faster_whisper_run.py [--words] MODEL_DIR THREADS BEAM FILE...
  -> JSON {"load_s":..., "texts": {file: text}, "words": {file: [[word, start, end], ...]}} on stdout
MODEL_DIR is the same CTranslate2 model Earshot converts from; int8 compute, CPU, English. --words asks for
word_timestamps=True (and reports the words).
"""
import json
import sys
import time

from faster_whisper import WhisperModel


def main():
    args = sys.argv[1:]
    words = args[0] == "--words"
    if words:
        args = args[1:]
    model_dir, threads, beam, files = args[0], int(args[1]), int(args[2]), args[3:]
    start = time.perf_counter()
    model = WhisperModel(model_dir, device="cpu", compute_type="int8", cpu_threads=threads, num_workers=1)
    load = time.perf_counter() - start
    texts, timed = {}, {}
    for path in files:
        segments, _ = model.transcribe(path, language="en", beam_size=beam, vad_filter=False, word_timestamps=words)
        segments = list(segments)
        texts[path] = " ".join(s.text.strip() for s in segments)
        if words:
            timed[path] = [[w.word, w.start, w.end] for s in segments for w in (s.words or [])]
    json.dump({"load_s": load, "texts": texts, "words": timed}, sys.stdout)


if __name__ == "__main__":
    main()
