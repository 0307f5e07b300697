#!/usr/bin/env python3
"""Voice ID benchmark (make bench): equal error rate and identification accuracy of `earshot voice`.

Read speech (../shared/data/speech): each of the 2 speakers enrolled from 5 utterances, the rest tested;
the 251 librispeech-speakers utterances are impostors for both. Short clips (FSDD): 6 speakers, each
enrolled from 5 spoken digits, 40 more per speaker tested. Scores: the trained head's probability and,
side by side, cosine to the enrolment centroid. Runs in a private EARSHOT_HOME overlay, so the user's
profiles are untouched. (Resemblyzer on the same trials is not run yet: see the closing notes.)
"""
import csv
import json
import os
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def eer(genuine, impostor):
    """Equal error rate: where false accepts equal false rejects, over all thresholds."""
    best = (2.0, 0.0)
    for t in sorted(set(genuine + impostor)):
        far = sum(s >= t for s in impostor) / len(impostor)
        frr = sum(s < t for s in genuine) / len(genuine)
        if abs(far - frr) < best[0]:
            best = (abs(far - frr), (far + frr) / 2)
    return best[1]


def run(cmd, env, check=True):
    start = time.perf_counter()
    out = subprocess.run(cmd, check=check, capture_output=True, text=True, env=env).stdout
    return out, time.perf_counter() - start


def overlay(home, tmp):
    h = os.path.join(tmp, "home")
    os.makedirs(os.path.join(h, "voice"))
    for name in ("runtime", "models"):
        os.symlink(os.path.join(home, name), os.path.join(h, name))
    os.symlink(os.path.join(home, "voice", "background"), os.path.join(h, "voice", "background"))
    return h


def evaluate(earshot, env, speakers, tests):
    """speakers: {name: [enrolment files]}; tests: [(file, true speaker or None)]."""
    enrol_times, refused = [], []
    for name, files in speakers.items():
        try:
            out, _ = run([earshot, "voice", "enroll", name, "--json"] + files, env)
            enrol_times.append(json.loads(out)["seconds"])
        except subprocess.CalledProcessError as e:
            refused.append(name)  # its test clips then count as impostors only
            print(f"enrolling {name} was refused: {e.stderr.strip()}", flush=True)
    # files with too little speech are reported in the JSON with an error, and left out of the scores
    out, seconds = run([earshot, "voice", "identify", "--json"] + [f for f, _ in tests], env, check=False)
    docs = json.loads(out)
    docs = docs if isinstance(docs, list) else [docs]
    kept = [(d, t) for d, t in zip(docs, tests) if "error" not in d]
    result_skipped = len(docs) - len(kept)
    docs, tests = [d for d, _ in kept], [t for _, t in kept]
    result = {}
    for key in ("probability", "cosine"):
        genuine, impostor = [], []
        for doc, (_, truth) in zip(docs, tests):
            for r in doc["ranking"]:
                (genuine if r["name"] == truth else impostor).append(r[key])
        result[f"eer_{key}"] = eer(genuine, impostor)
    known = [(d, t) for d, (_, t) in zip(docs, tests) if t is not None and t not in refused]
    result["identification"] = sum(d["ranking"][0]["name"] == t for d, t in known) / len(known)
    result["trials"] = sum(len(d["ranking"]) for d in docs)
    result["enrolled"] = f"{len(speakers) - len(refused)}/{len(speakers)}"
    result["test_files_refused"] = result_skipped
    result["enrol_train_s_median"] = sorted(enrol_times)[len(enrol_times) // 2]
    result["identify_s_per_file"] = seconds / (len(tests) + result_skipped)
    return result


def main():
    earshot = os.path.join(ROOT, ".build/release/earshot")
    data = os.environ.get("EARSHOT_DATA") or os.path.join(os.path.dirname(ROOT), "shared", "data")
    if not os.path.isdir(os.path.join(data, "speech")):
        print("skipping: ../shared/data is not here")
        return
    home = os.environ.get("EARSHOT_HOME") or os.path.expanduser("~/.cache/earshot")
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, EARSHOT_HOME=overlay(home, tmp))
        speech = os.path.join(data, "speech")
        by_speaker = {}
        for r in csv.DictReader(open(os.path.join(speech, "transcripts.tsv")), delimiter="\t"):
            by_speaker.setdefault(r["speaker"], []).append(os.path.join(speech, r["path"]))
        impostors = [os.path.join(data, "librispeech-speakers", r["path"])
                     for r in csv.DictReader(open(os.path.join(data, "librispeech-speakers", "manifest.csv")))]
        tests = [(f, s) for s, fs in by_speaker.items() for f in fs[5:]] + [(f, None) for f in impostors]
        r = evaluate(earshot, env, {s: fs[:5] for s, fs in by_speaker.items()}, tests)
        rows.append(dict(task="read speech: 2 speakers, 251 impostors", **r))
        print(json.dumps(rows[-1]), flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, EARSHOT_HOME=overlay(home, tmp))
        fsdd = os.path.join(data, "fsdd")
        enrol, tests = {}, []
        for r in csv.DictReader(open(os.path.join(fsdd, "manifest.csv"))):
            path = os.path.join(fsdd, r["path"])
            # enrolment: five different digits (0-4, first take); every other recording is a test
            if r["index"] == "0" and int(r["digit"]) < 5:
                enrol.setdefault(r["speaker"], []).append(path)
            else:
                tests.append((path, r["speaker"]))
        r = evaluate(earshot, env, enrol, tests)
        rows.append(dict(task="FSDD digits: 6 speakers, 5 clips each", **r))
        print(json.dumps(rows[-1]), flush=True)
    os.makedirs(os.path.join(ROOT, "bench/results"), exist_ok=True)
    json.dump(rows, open(os.path.join(ROOT, "bench/results/voice.json"), "w"), indent=2)
    print("\n| task | enrolled | EER (trained head) | EER (centroid cosine) | identification | trials | enrolment | identify per file |")
    print("|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['task']} | {r['enrolled']} | {r['eer_probability'] * 100:.2f}% | {r['eer_cosine'] * 100:.2f}% | {r['identification'] * 100:.1f}% | "
              f"{r['trials']} | {r['enrol_train_s_median']:.2f} s | {r['identify_s_per_file']:.2f} s |")


if __name__ == "__main__":
    main()
