#!/usr/bin/env python3
"""Independent numpy + onnxruntime reference of YAMNet's front-end and embedding (DESIGN.md §6), used by
the Swift tests to check theirs. usage: yamnet_reference.py MODEL_DIR AUDIO.f32 -> JSON on stdout
AUDIO.f32: raw little-endian float32 samples at 16 kHz."""
import json
import sys

import numpy as np
import onnxruntime as ort


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
    model_dir, audio = sys.argv[1], sys.argv[2]
    x = np.fromfile(audio, dtype="<f4").astype(np.float64)
    info = json.load(open(f"{model_dir}/yamnet.json"))
    mel = log_mel(x)
    patch = mel[:96]
    q = np.clip(np.round(patch / info["input_scale"] + info["input_zero_point"]), 0, 255).astype(np.uint8)
    sess = ort.InferenceSession(f"{model_dir}/yamnet.onnx", providers=["CPUExecutionProvider"])
    scores, emb = sess.run([info["scores"], info["embedding"]], {info["input"]: q.reshape(1, 1, 96, 64)})
    json.dump({"log_mel": mel.flatten().tolist(), "frames": int(mel.shape[0]),
               "embedding": emb.flatten().tolist(), "scores_q": scores.flatten().tolist()}, sys.stdout)


if __name__ == "__main__":
    main()
