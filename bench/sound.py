#!/usr/bin/env python3
"""Sound classification benchmark (make bench): Earshot vs scikit-learn on the same frozen networks.

ESC-10 5-fold cross-validation (folds from meta.csv) and male/female on librispeech-speakers (5 folds,
one utterance per speaker, so folds split by speaker) with YAMNet and with the speaker encoder's features.
Earshot runs `earshot sound cross-validate` cold (embedding cache emptied) and warm (cached, median of 3).
The comparison embeds the same windows with Python onnxruntime and the numpy front-ends of Tests/Reference,
then trains scikit-learn's LogisticRegression per fold (clip = mean of its windows' probabilities).

Then male/female across corpora: trained on librispeech-speakers, tested on voices from elsewhere (both
speakers of speech/, 60 FSDD digits by its men, 8 female and 8 male espeak-ng voices), as
`earshot sound train` + `earshot sound evaluate` with each network.
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import av
import numpy as np
import onnxruntime as ort
from scipy.signal import resample_poly
from sklearn.linear_model import LogisticRegression
from sklearn.preprocessing import StandardScaler

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "Tests", "Reference"))
import speaker_reference  # noqa: E402
import yamnet_reference as ref  # noqa: E402


def decode(path):
    with av.open(path) as f:
        stream = f.streams.audio[0]
        chunks = [frame.to_ndarray() for frame in f.decode(stream)]
        rate = stream.rate
    x = np.concatenate([c if c.ndim == 2 else c[None] for c in chunks], axis=1)
    if x.dtype.kind == "i":
        x = x / np.iinfo(x.dtype).max
    x = x.astype(np.float64).mean(axis=0) if x.shape[0] > 1 else x[0].astype(np.float64)
    if rate != 16000:
        g = np.gcd(rate, 16000)
        x = resample_poly(x, 16000 // g, rate // g)
    return x


class YamnetPython:
    def __init__(self, model_dir):
        self.info = json.load(open(f"{model_dir}/yamnet.json"))
        so = ort.SessionOptions()
        so.intra_op_num_threads = 1
        self.sess = ort.InferenceSession(f"{model_dir}/yamnet.onnx", so, providers=["CPUExecutionProvider"])

    def windows(self, x, window=0.975, overlap=0.5):
        win = max(15600, int(window * 16000))
        if len(x) < win:
            x = np.pad(x, (0, win - len(x)))
        mel = ref.log_mel(x)
        hop = int(window * (1 - overlap) * 16000)
        starts = list(range(0, len(x) - win + 1, hop))
        if starts[-1] != len(x) - win:
            starts.append(len(x) - win)
        out = []
        frames = 1 + (win - 400) // 160
        for s in starts:
            f0 = s // 160
            embs = []
            for p in range(f0, f0 + frames - 96 + 1, 48):
                e = self.sess.run([self.info["embedding"]], {self.info["input"]: mel[p:p + 96].reshape(1, 1, 96, 64)})[0]
                embs.append(e.reshape(-1))
            out.append(np.mean(embs, axis=0))
        return np.stack(out)


class SpeakerPython:
    """The speaker encoder's windows as Earshot's speaker features: the 0.8 s vectors (every 0.4 s) inside
    each analysis window, normalised, averaged, normalised."""

    def __init__(self, model):
        so = ort.SessionOptions()
        so.intra_op_num_threads = 1
        self.sess = ort.InferenceSession(model, so, providers=["CPUExecutionProvider"])

    def windows(self, x, window=0.975, overlap=0.5):
        win = max(13152, int(window * 16000))
        if len(x) < win:
            x = np.pad(x, (0, win - len(x)))
        mel = speaker_reference.log_mel(x)
        n = 1 + (len(mel) - 80) // 40
        v = self.sess.run(None, {"mel_window": np.stack([mel[i * 40:i * 40 + 80] for i in range(n)])})[0]
        v = v / np.linalg.norm(v, axis=1, keepdims=True)
        hop = int(window * (1 - overlap) * 16000)
        starts = list(range(0, len(x) - win + 1, hop))
        if starts[-1] != len(x) - win:
            starts.append(len(x) - win)
        frames = 1 + (win - 512) // 160
        out = []
        for s in starts:
            f0 = s // 160
            inside = [i for i in range(n) if i * 40 >= f0 and i * 40 + 80 <= f0 + frames] or [min(n - 1, (f0 + 39) // 40)]
            m = v[inside].mean(axis=0)
            out.append(m / np.linalg.norm(m))
        return np.stack(out)


def sklearn_cv(items, folds, network, window):
    start = time.perf_counter()
    embs = [network.windows(decode(path), window) for path, _ in items]
    labels = np.array([label for _, label in items])
    correct = []
    for fold in sorted(set(folds)):
        train = [i for i, f in enumerate(folds) if f != fold]
        test = [i for i, f in enumerate(folds) if f == fold]
        x = np.concatenate([embs[i] for i in train])
        y = np.concatenate([[labels[i]] * len(embs[i]) for i in train])
        scaler = StandardScaler().fit(x)
        clf = LogisticRegression(max_iter=2000).fit(scaler.transform(x), y)
        hits = [clf.classes_[clf.predict_proba(scaler.transform(embs[i])).mean(axis=0).argmax()] == labels[i] for i in test]
        correct.append(float(np.mean(hits)))
    return float(np.mean(correct)), float(np.std(correct)), time.perf_counter() - start


def earshot_cv(earshot, folder, extra, home, cold):
    if cold:
        shutil.rmtree(os.path.join(home, "cache", "sound-embeddings"), ignore_errors=True)
    start = time.perf_counter()
    out = subprocess.run([earshot, "sound", "cross-validate", folder, "--json"] + extra, check=True,
                         capture_output=True, text=True).stdout
    return json.loads(out), time.perf_counter() - start


def gender_folder(data, tmp):
    folder = os.path.join(tmp, "gender")
    rows = [line.strip().split(",") for line in open(os.path.join(data, "librispeech-speakers", "manifest.csv"))][1:]
    with open(os.path.join(tmp, "gender-meta.csv"), "w") as meta:
        meta.write("path,speaker\n")
        for path, speaker, gender, _ in rows:
            label = "female" if gender == "F" else "male"
            os.makedirs(os.path.join(folder, label), exist_ok=True)
            os.symlink(os.path.join(data, "librispeech-speakers", path), os.path.join(folder, label, path))
            meta.write(f"{label}/{path},{speaker}\n")
    shutil.move(os.path.join(tmp, "gender-meta.csv"), os.path.join(folder, "meta.csv"))
    return folder


def other_corpora_folder(data, tmp):
    """Voices from outside librispeech: speech/ (its woman and 40 utterances of its man), FSDD's men
    (60 digits), and 8 female and 8 male espeak-ng voices saying 3 sentences each."""
    folder = os.path.join(tmp, "other-corpora")
    for label in ("female", "male"):
        os.makedirs(os.path.join(folder, label))
    rows = [line.rstrip("\n").split("\t") for line in open(os.path.join(data, "speech", "transcripts.tsv"))][1:]
    for path, _, gender, _ in [r for r in rows if r[2] == "F"] + [r for r in rows if r[2] == "M"][:40]:
        os.symlink(os.path.join(data, "speech", path), os.path.join(folder, "female" if gender == "F" else "male", path))
    fsdd = [line.strip().split(",") for line in open(os.path.join(data, "fsdd", "manifest.csv"))][1:]
    for row in [r for r in fsdd if int(r[4]) < 2][:60]:
        os.symlink(os.path.join(data, "fsdd", row[0]), os.path.join(folder, "male", os.path.basename(row[0])))
    lines = ["The weather was cold and windy all day long.", "Please remember to bring your umbrella tomorrow.",
             "My brother plays the guitar in a small band."]
    voices = {"female": ["en+f1", "en+f2", "en+f3", "en+f4", "en-us+f1", "en-us+f2", "en-us+f3", "en-gb+f4"],
              "male": ["en+m1", "en+m2", "en+m3", "en+m4", "en-us+m1", "en-us+m3", "en-gb+m5", "en+m7"]}
    for label, names in voices.items():
        for voice in names:
            for i, line in enumerate(lines):
                subprocess.run(["espeak-ng", "-v", voice, "-s", "150", "-w",
                                os.path.join(folder, label, f"espeak-{voice}-{i}.wav"), line], check=True)
    return folder


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--earshot", default=os.path.join(ROOT, ".build/release/earshot"))
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--out", default=os.path.join(ROOT, "bench/results"))
    args = ap.parse_args()
    data = os.environ.get("EARSHOT_DATA") or os.path.join(os.path.dirname(ROOT), "shared", "data")
    if not os.path.isdir(os.path.join(data, "esc10")):
        print("skipping: ../shared/data/esc10 (or $EARSHOT_DATA/esc10) is not here")
        return
    home = os.environ.get("EARSHOT_HOME") or os.path.expanduser("~/.cache/earshot")
    networks = {"yamnet": YamnetPython(os.path.join(home, "models", "yamnet")),
                "speaker": SpeakerPython(os.path.join(home, "models", "speaker", "embedder.s8-paired.onnx"))}
    os.makedirs(args.out, exist_ok=True)
    rows, held_out = [], []
    with tempfile.TemporaryDirectory() as tmp:
        tasks = [("ESC-10 (5 folds from meta.csv)", os.path.join(data, "esc10"), "yamnet", 0.975)]
        if os.path.isdir(os.path.join(data, "librispeech-speakers")):
            gender = gender_folder(data, tmp)
            for features in ("yamnet", "speaker"):
                tasks.append((f"male/female, librispeech-speakers (5 folds by speaker), {features} features, 2 s windows",
                              gender, features, 2.0))
        for name, folder, features, window in tasks:
            extra = ["--features", features, "--window", str(window)]
            cold, cold_s = earshot_cv(args.earshot, folder, extra, home, cold=True)
            warm = [earshot_cv(args.earshot, folder, extra, home, cold=False)[1] for _ in range(args.runs)]
            meta = [line.strip().split(",") for line in open(os.path.join(folder, "meta.csv"))]
            header = meta[0]
            labels = sorted(d for d in os.listdir(folder) if os.path.isdir(os.path.join(folder, d)))
            items, folds = [], []
            for label in labels:
                for f in sorted(os.listdir(os.path.join(folder, label))):
                    items.append((os.path.join(folder, label, f), label))
            if "fold" in header:
                fold_of = {r[header.index("path")]: int(r[header.index("fold")]) for r in meta[1:]}
                folds = [fold_of[os.path.relpath(p, folder)] for p, _ in items]
            else:
                folds = [i % 5 + 1 for i in range(len(items))]  # one file per speaker here
            acc, std, sk_s = sklearn_cv(items, folds, networks[features], window)
            rows.append({"task": name, "earshot_accuracy": cold["mean"], "earshot_std": cold["std"],
                         "earshot_cold_s": cold_s, "earshot_warm_s": statistics.median(warm),
                         "sklearn_accuracy": acc, "sklearn_std": std, "sklearn_s": sk_s})
            print(json.dumps(rows[-1]), flush=True)
        if os.path.isdir(os.path.join(data, "librispeech-speakers")):
            test = other_corpora_folder(data, tmp)
            for features in ("yamnet", "speaker"):
                for window in ("0.975", "2.0"):
                    model = os.path.join(tmp, f"gender-{features}-{window}.model")
                    subprocess.run([args.earshot, "sound", "train", gender, "-o", model, "--features", features,
                                    "--window", window], check=True, capture_output=True)
                    out = subprocess.run([args.earshot, "sound", "evaluate", model, test, "--json"], check=True,
                                         capture_output=True, text=True).stdout
                    held_out.append({"features": features, "window": window, "accuracy": json.loads(out)["accuracy"],
                                     "files": sum(c["support"] for c in json.loads(out)["classes"])})
                    print(json.dumps(held_out[-1]), flush=True)
    with open(os.path.join(args.out, "sound.json"), "w") as f:
        json.dump({"cross_validation": rows, "other_corpora": held_out}, f, indent=2)
    print("\n| task | Earshot accuracy | Earshot cold | Earshot cached (median) | scikit-learn accuracy | scikit-learn time |")
    print("|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['task']} | {r['earshot_accuracy']:.3f} ± {r['earshot_std']:.3f} | {r['earshot_cold_s']:.1f} s | "
              f"{r['earshot_warm_s']:.1f} s | {r['sklearn_accuracy']:.3f} ± {r['sklearn_std']:.3f} | {r['sklearn_s']:.1f} s |")
    if held_out:
        print("\n| male/female trained on librispeech-speakers, tested on other corpora | window | accuracy | files |")
        print("|---|---|---|---|")
        for r in held_out:
            print(f"| {r['features']} features | {r['window']} s | {r['accuracy']:.3f} | {r['files']} |")


if __name__ == "__main__":
    main()
