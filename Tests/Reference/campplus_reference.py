#!/usr/bin/env python3
"""Independent numpy + onnxruntime reference of the diarizer's speaker network: Kaldi's log mel filterbank written
from torchaudio.compliance.kaldi.fbank's formulas (its defaults, 80 bins, no dither) and the CAM++ network setup
converted, run with every graph optimisation off.
usage: campplus_reference.py MODEL AUDIO.f32 [AUDIO.f32 ...]
AUDIO.f32: raw little-endian float32 samples at 16 kHz. Prints JSON, per file: fbank (first file only) and windows
(the L2-normalised vector of every 100-frame window every 50 frames, the last one ending with the audio, each
window's mean over time taken out first)."""
import json
import sys

import numpy as np

from float_session import reference_session


def mel(f):
    return 1127.0 * np.log(1.0 + f / 700.0)


def mel_banks(bins=80, n_fft=512, rate=16000, low=20.0):
    freqs = rate / n_fft * np.arange(n_fft // 2)
    m, lo, hi = mel(freqs), mel(low), mel(rate / 2)
    delta = (hi - lo) / (bins + 1)
    banks = np.zeros((bins, n_fft // 2 + 1))
    for b in range(bins):
        left, centre, right = lo + b * delta, lo + (b + 1) * delta, lo + (b + 2) * delta
        banks[b, :n_fft // 2] = np.maximum(0, np.minimum((m - left) / (centre - left), (right - m) / (right - centre)))
    return banks


def fbank(x):
    n = 1 + (len(x) - 400) // 160
    frames = x[np.arange(400)[None, :] + 160 * np.arange(n)[:, None]]
    frames = frames - frames.mean(axis=1, keepdims=True)
    previous = np.concatenate([frames[:, :1], frames[:, :-1]], axis=1)
    frames = frames - 0.97 * previous
    frames = frames * (0.5 - 0.5 * np.cos(2 * np.pi * np.arange(400) / 399)) ** 0.85
    power = np.abs(np.fft.rfft(frames, 512)) ** 2
    return np.log(np.maximum(power @ mel_banks().T, np.finfo(np.float32).eps))


def spans(frames, length=100, hop=50):
    if frames <= length:
        return [(0, frames)] if frames > 0 else []
    return [(a, a + length) for a in range(0, frames - length, hop)] + [(frames - length, frames)]


def main():
    model, audio = sys.argv[1], sys.argv[2:]
    sess = reference_session(model)
    files = []
    for i, path in enumerate(audio):
        feats = fbank(np.fromfile(path, dtype="<f4").astype(np.float64))
        windows = []
        for a, b in spans(len(feats)):
            w = feats[a:b] - feats[a:b].mean(axis=0)
            e = sess.run(None, {"fbank": w[None].astype(np.float32)})[0][0]
            windows.append((e / np.linalg.norm(e)).tolist())
        files.append({"windows": windows} | ({"fbank": feats.astype(np.float32).ravel().tolist()} if i == 0 else {}))
    json.dump(files, sys.stdout)


if __name__ == "__main__":
    main()
