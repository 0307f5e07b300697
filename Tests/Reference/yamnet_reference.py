#!/usr/bin/env python3
"""Independent numpy + onnxruntime reference of YAMNet's front-end and embedding, used by the Swift tests to
check theirs. The network runs with every graph optimisation off (no fused kernels): the float reference.
usage: yamnet_reference.py MODEL_DIR AUDIO.f32 [AUDIO.f32 ...] -> JSON on stdout: per file, its log-mel
(first file only) and the embedding of every 96-frame patch every 48 frames.
AUDIO.f32: raw little-endian float32 samples at 16 kHz."""
import json
import sys

import numpy as np

from float_session import reference_session


def hz_to_mel(f):
    return 1127.0 * np.log(1.0 + f / 700.0)


def mel_matrix(bins=257, bands=64, rate=16000, lo=125.0, hi=7500.0):
    spec_mel = hz_to_mel(np.linspace(0.0, rate / 2, bins))
    edges = np.linspace(hz_to_mel(lo), hz_to_mel(hi), bands + 2)
    m = np.zeros((bins, bands))
    for i in range(bands):
        l, c, u = edges[i:i + 3]
        m[:, i] = np.maximum(0.0, np.minimum((spec_mel - l) / (c - l), (u - spec_mel) / (u - c)))
    m[0, :] = 0.0
    return m


def log_mel(x):
    n = 1 + (len(x) - 400) // 160
    frames = np.stack([x[i * 160:i * 160 + 400] for i in range(n)])
    window = 0.5 - 0.5 * np.cos(2 * np.pi * np.arange(400) / 400)  # periodic Hann
    mag = np.abs(np.fft.rfft(frames * window, 512))
    return np.log(mag @ mel_matrix() + 0.001).astype(np.float32)


def main():
    model_dir, audio = sys.argv[1], sys.argv[2:]
    info = json.load(open(f"{model_dir}/yamnet.json"))
    sess = reference_session(f"{model_dir}/yamnet.onnx")
    files = []
    for i, path in enumerate(audio):
        mel = log_mel(np.fromfile(path, dtype="<f4").astype(np.float64))
        patches = [sess.run([info["embedding"]], {info["input"]: mel[p:p + 96].reshape(1, 1, 96, 64)})[0].ravel().tolist()
                   for p in range(0, len(mel) - 96 + 1, 48)]
        files.append({"frames": int(mel.shape[0]), "patches": patches} | ({"log_mel": mel.ravel().tolist()} if i == 0 else {}))
    json.dump(files, sys.stdout)


if __name__ == "__main__":
    main()
