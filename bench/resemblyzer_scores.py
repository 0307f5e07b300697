#!/usr/bin/env python3
"""Resemblyzer on the same trials as `earshot voice` (run by bench/voice.py in Resemblyzer's own venv).
usage: resemblyzer_scores.py TRIALS.json  (TRIALS: {"enrol": {name: [files]}, "tests": [file, ...]})
Prints JSON: per test file the cosine to each speaker's centroid (its documented verification recipe:
preprocess_wav, embed_utterance, mean of the enrolment embeddings), and the seconds it spent."""
import json
import sys
import time
import warnings

warnings.filterwarnings("ignore")
import numpy as np  # noqa: E402
from resemblyzer import VoiceEncoder, preprocess_wav  # noqa: E402


def main():
    trials = json.load(open(sys.argv[1]))
    encoder = VoiceEncoder("cpu", verbose=False)
    start = time.perf_counter()
    centroids = {}
    for name, files in trials["enrol"].items():
        e = np.mean([encoder.embed_utterance(preprocess_wav(f)) for f in files], axis=0)
        centroids[name] = e / np.linalg.norm(e)
    enrol_seconds = time.perf_counter() - start
    scores, per_file = [], []
    for f in trials["tests"]:
        t = time.perf_counter()
        try:
            e = encoder.embed_utterance(preprocess_wav(f))
            scores.append({n: float(e @ c) for n, c in centroids.items()})
        except Exception as error:  # a clip its VAD empties: left out, like earshot's refusals
            scores.append({"error": str(error)})
        per_file.append(time.perf_counter() - t)
    json.dump({"scores": scores, "enrol_seconds": enrol_seconds,
               "median_file_seconds": float(np.median(per_file))}, sys.stdout)


if __name__ == "__main__":
    main()
