"""Real voices from ../shared/data for the people benchmarks (bench/people.py, bench/named_diarization.py): clips
read as 16 kHz mono with the silence at either end cut, WAV written back, and each recurring speaker's files."""
import os
import sys
import wave

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tools"))
import conversations  # noqa: E402  (the conversations tool reads clips the same way)

DATA = conversations.DATA
RATE = conversations.RATE


def read(path):
    """A clip as 16 kHz mono float32, without the near-silence at either end."""
    x = conversations.read(path)
    loud = np.flatnonzero(np.abs(x) > np.abs(x).max() * 0.01)
    return x[loud[0]:loud[-1] + 1] if len(loud) else x


def write(path, x):
    """16-bit mono WAV at 16 kHz."""
    with wave.open(path, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(RATE)
        w.writeframes((np.clip(x, -1, 1) * 32767).astype("<i2").tobytes())


def fsdd_speakers():
    """FSDD's six speakers, each with the paths of their 500 digits."""
    fsdd = {}
    with open(os.path.join(DATA, "fsdd", "manifest.csv")) as f:
        next(f)
        for line in f:
            path, _, speaker = line.split(",")[:3]
            fsdd.setdefault(speaker, []).append(os.path.join(DATA, "fsdd", path))
    return fsdd


def read_speech_files():
    """The two read-speech speakers of speech/ ("mark", "linda"): their file names."""
    speech = sorted(os.listdir(os.path.join(DATA, "speech")))
    return {"mark": [f for f in speech if f.startswith("dctts_m")], "linda": [f for f in speech if f.startswith("lj_")]}
