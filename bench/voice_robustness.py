#!/usr/bin/env python3
"""Male/female on voice features when the recording is worse than the training data (make bench; run with
$EARSHOT_HOME/bench-venv/bin/python).

Trains `earshot sound train` on the 251 librispeech-speakers utterances (voice features, the default for speech)
and evaluates it (`earshot sound evaluate`) on the 180 voices of other corpora that AccuracyGuardTests uses (the
LJSpeech and dctts utterances of speech/, FSDD's men, 16 espeak-ng voices), as recorded and degraded: white + pink
noise at 10 and 5 dB SNR (over the speech's level, seeded), reverberation (sox `reverb 60 50 100`), a telephone
channel (8 kHz, 300-3400 Hz) and a quiet recording (peak at -35 dBFS). The sets are built once under
$EARSHOT_HOME/bench/voice-robustness."""

import argparse
import csv
import json
import os
import shutil
import subprocess
import sys
import wave

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HOME = os.environ.get("EARSHOT_HOME", os.path.expanduser("~/.cache/earshot"))
WORK = os.path.join(HOME, "bench", "voice-robustness")
LINES = ["The weather was cold and windy all day long.", "Please remember to bring your umbrella tomorrow.",
         "My brother plays the guitar in a small band."]
VOICES = {"female": ["en+f1", "en+f2", "en+f3", "en+f4", "en-us+f1", "en-us+f2", "en-us+f3", "en-gb+f4"],
          "male": ["en+m1", "en+m2", "en+m3", "en+m4", "en-us+m1", "en-us+m3", "en-gb+m5", "en+m7"]}
EFFECTS = {"reverb": ["reverb", "60", "50", "100", "pad", "0", "0.3"], "quiet": ["gain", "-n", "-35"]}


def rows(path, separator):
    with open(path, newline="") as handle:
        return list(csv.DictReader(handle, delimiter=separator))


def sox(*args):
    subprocess.run(["sox", *args], check=True, capture_output=True)


def read(path):
    with wave.open(path) as w:
        return np.frombuffer(w.readframes(w.getnframes()), np.int16).astype(np.float64)


def write(path, samples):
    with wave.open(path, "wb") as w:
        w.setnchannels(1), w.setsampwidth(2), w.setframerate(16000)
        w.writeframes(np.clip(samples, -32768, 32767).astype(np.int16).tobytes())


def noisy(samples, snr, rng):
    """White and pink noise, half each, at `snr` dB below the level of the speech (samples above 5% of the peak)."""
    white = rng.standard_normal(len(samples))
    pink = np.fft.irfft(np.fft.rfft(rng.standard_normal(len(samples))) / np.sqrt(np.arange(1, len(samples) // 2 + 2)),
                        len(samples))
    noise = white / white.std() + pink / pink.std()
    speech = samples[np.abs(samples) > 0.05 * np.abs(samples).max()]
    return samples + noise * np.sqrt((speech ** 2).mean() / 10 ** (snr / 10)) / noise.std()


def build(data):
    """train/<gender> (links) and test-<variant>/<gender> (16 kHz WAV); returns the variants' names."""
    variants = ["clean", "noise10", "noise5", "reverb", "phone", "quiet"]
    stamp = os.path.join(WORK, ".built")
    if os.path.exists(stamp):
        return variants
    shutil.rmtree(WORK, ignore_errors=True)
    sources = {"female": [], "male": []}
    for row in rows(os.path.join(data, "librispeech-speakers", "manifest.csv"), ","):
        gender = "female" if row["gender"] == "F" else "male"
        os.makedirs(os.path.join(WORK, "train", gender), exist_ok=True)
        source = os.path.join(data, "librispeech-speakers", row["path"])
        os.symlink(source, os.path.join(WORK, "train", gender, os.path.basename(source)))
    speech = rows(os.path.join(data, "speech", "transcripts.tsv"), "\t")
    sources["female"] += [os.path.join(data, "speech", r["path"]) for r in speech if r["gender"] == "F"]
    sources["male"] += [os.path.join(data, "speech", r["path"]) for r in speech if r["gender"] == "M"][:40]
    fsdd = [r for r in rows(os.path.join(data, "fsdd", "manifest.csv"), ",") if int(r["index"]) < 2][:60]
    sources["male"] += [os.path.join(data, "fsdd", r["path"]) for r in fsdd]
    rng = np.random.default_rng(7)
    for gender, files in sources.items():
        for variant in variants:
            os.makedirs(os.path.join(WORK, "test-" + variant, gender), exist_ok=True)
        spoken = []
        for voice in VOICES[gender]:
            for i, line in enumerate(LINES):
                path = os.path.join(WORK, f"espeak-{voice}-{i}.wav")
                subprocess.run(["espeak-ng", "-v", voice, "-w", path, line], check=True)
                spoken.append(path)
        for source in files + spoken:
            name = os.path.splitext(os.path.basename(source))[0] + ".wav"
            clean = os.path.join(WORK, "test-clean", gender, name)
            sox(source, "-r", "16000", "-c", "1", "-b", "16", clean)
            for variant, effect in EFFECTS.items():
                sox(clean, os.path.join(WORK, "test-" + variant, gender, name), *effect)
            narrow = os.path.join(WORK, "narrow.wav")
            sox(clean, "-r", "8000", narrow, "sinc", "300-3400")
            sox(narrow, "-r", "16000", os.path.join(WORK, "test-phone", gender, name))
            samples = read(clean)
            for snr in (10, 5):
                write(os.path.join(WORK, f"test-noise{snr}", gender, name), noisy(samples, snr, rng))
        for path in spoken + [os.path.join(WORK, "narrow.wav")]:
            os.remove(path)
    open(stamp, "w").close()
    return variants


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--earshot", default=os.path.join(ROOT, ".build/release/earshot"))
    args = ap.parse_args()
    data = os.environ.get("EARSHOT_DATA") or os.path.join(os.path.dirname(ROOT), "shared", "data")
    if not all(os.path.isdir(os.path.join(data, d)) for d in ("librispeech-speakers", "speech", "fsdd")):
        print("skipping the voice robustness benchmark: ../shared/data (librispeech-speakers, speech, fsdd) is not here")
        return 0
    if not os.access(args.earshot, os.X_OK):
        print(f"voice robustness: {args.earshot} is not built: run `make setup` first (or give --earshot PATH)")
        return 1
    variants = build(data)
    model = os.path.join(WORK, "gender.model")
    subprocess.run([args.earshot, "sound", "train", os.path.join(WORK, "train"), "-o", model, "--json"],
                   check=True, capture_output=True)
    print("==> male/female on voice features, trained on librispeech-speakers, tested on 180 voices of other corpora")
    print("| recording | accuracy | female → male | male → female |\n|---|---|---|---|")
    for variant in variants:
        out = subprocess.run([args.earshot, "sound", "evaluate", model, os.path.join(WORK, "test-" + variant), "--json"],
                             check=True, capture_output=True, text=True).stdout
        report = json.loads(out)
        (ff, fm), (mf, mm) = report["confusion"]
        print(f"| {variant} | {report['accuracy']:.3f} | {fm} of {ff + fm} | {mf} of {mf + mm} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
