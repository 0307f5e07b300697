#!/usr/bin/env python3
"""The d-vector diarization recipe, for bench/diarization.py to run side by side with `earshot diarize`.

usage: resemblyzer_diarize.py OUT_DIR [--oracle] WAV...   (with --oracle, WAV's RTTM beside it gives the count)

Resemblyzer's documented diarization demo: webrtcvad finds speech (30 ms frames, aggressiveness 3),
embed_utterance(return_partials=True, rate=16) gives 1.6 s partial d-vectors 16 times a second over the
speech, and average-linkage clustering on cosine distance groups them: with the reference's speaker count
(--oracle) or with a distance threshold of 0.5 (cosine 0.5, the same as Earshot's default). Each speech
frame takes the label of the partial whose centre is nearest. Writes OUT_DIR/<stem>.rttm and prints
seconds of compute per file as JSON lines.
"""
import json
import os
import sys
import time
import wave

import numpy as np
import webrtcvad
from resemblyzer import VoiceEncoder
from sklearn.cluster import AgglomerativeClustering

RATE = 16000


def speech_frames(audio):
    vad = webrtcvad.Vad(3)
    frame = int(RATE * 0.03)
    pcm = (np.clip(audio, -1, 1) * 32767).astype("<i2")
    return [vad.is_speech(pcm[i:i + frame].tobytes(), RATE) for i in range(0, len(pcm) - frame + 1, frame)], frame


def diarize(encoder, audio, count):
    voiced, frame = speech_frames(audio)
    keep = np.repeat(np.array(voiced, dtype=bool), frame)
    keep = np.concatenate([keep, np.zeros(len(audio) - len(keep), dtype=bool)])
    positions = np.flatnonzero(keep)  # original sample index of each kept sample
    if len(positions) < RATE:
        return []
    _, partials, slices = encoder.embed_utterance(audio[keep], return_partials=True, rate=16)
    centres = np.array([positions[min(len(positions) - 1, (s.start + s.stop) // 2)] for s in slices]) / RATE
    if len(partials) < 2:
        labels = np.zeros(len(partials), dtype=int)
    elif count:
        labels = AgglomerativeClustering(n_clusters=min(count, len(partials)), metric="cosine", linkage="average").fit_predict(partials)
    else:
        labels = AgglomerativeClustering(n_clusters=None, distance_threshold=0.5, metric="cosine", linkage="average").fit_predict(partials)
    turns = []
    for f, v in enumerate(voiced):
        if not v:
            continue
        t = (f + 0.5) * frame / RATE
        label = labels[int(np.argmin(np.abs(centres - t)))]
        start, end = f * frame / RATE, (f + 1) * frame / RATE
        if turns and turns[-1][2] == label and start - turns[-1][1] < 0.05:
            turns[-1][1] = end
        else:
            turns.append([start, end, label])
    return turns


def main():
    out = sys.argv[1]
    oracle = "--oracle" in sys.argv
    files = [a for a in sys.argv[2:] if a != "--oracle"]
    encoder = VoiceEncoder("cpu", verbose=False)
    for path in files:
        with wave.open(path) as w:
            audio = np.frombuffer(w.readframes(w.getnframes()), dtype="<i2").astype(np.float32) / 32768
        stem = os.path.splitext(os.path.basename(path))[0]
        count = None
        if oracle:
            with open(os.path.splitext(path)[0] + ".rttm") as f:
                count = len({line.split()[7] for line in f if line.startswith("SPEAKER")})
        started = time.perf_counter()
        turns = diarize(encoder, audio, count)
        seconds = time.perf_counter() - started
        with open(os.path.join(out, stem + ".rttm"), "w") as f:
            for start, end, label in turns:
                f.write(f"SPEAKER {stem} 1 {start:.3f} {end - start:.3f} <NA> <NA> spk{label} <NA> <NA>\n")
        print(json.dumps({"file": stem, "seconds": seconds, "audio": len(audio) / RATE}), flush=True)


if __name__ == "__main__":
    main()
