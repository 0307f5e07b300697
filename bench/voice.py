#!/usr/bin/env python3
"""Voice ID benchmark (make bench): equal error rate and identification accuracy of `earshot voice`.

Read speech (../shared/data/speech): each of the 2 speakers enrolled from 5 utterances, the rest tested;
the 251 librispeech-speakers utterances are impostors for both. Short clips (FSDD): 6 speakers, each
enrolled from 5 spoken digits, 40 more per speaker tested. Scores: the trained head's probability and,
side by side, cosine to the enrolment centroid. Runs in a private EARSHOT_HOME overlay, so the user's
profiles are untouched. Resemblyzer (pip, its own venv made by scripts/bench.sh) scores the same trials
with its documented recipe (cosine of the utterance embedding to the mean enrolment embedding).
Speed: enrolling from 5 × 10 s clips and verifying a 10 s clip, whole CLI runs, median of 3.
"""
import csv
import json
import os
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HOME = os.environ.get("EARSHOT_HOME") or os.path.expanduser("~/.cache/earshot")
RESEMBLYZER = os.path.join(HOME, "resemblyzer-venv", "bin", "python")


def resemblyzer(speakers, tests, tmp):
    """Resemblyzer's cosine scores on the same trials, or None where its venv is missing."""
    if not os.path.exists(RESEMBLYZER):
        print("Resemblyzer is not installed (scripts/bench.sh installs it): left out", flush=True)
        return None
    trials = os.path.join(tmp, "trials.json")
    json.dump({"enrol": speakers, "tests": [f for f, _ in tests]}, open(trials, "w"))
    out, seconds = run([RESEMBLYZER, os.path.join(ROOT, "bench", "resemblyzer_scores.py"), trials], os.environ)
    doc = json.loads(out)
    kept = [(s, t) for s, (_, t) in zip(doc["scores"], tests) if "error" not in s]
    genuine = [v for s, t in kept for n, v in s.items() if n == t]
    impostor = [v for s, t in kept for n, v in s.items() if n != t]
    known = [(s, t) for s, t in kept if t is not None]
    return {"eer": eer(genuine, impostor), "identification": sum(max(s, key=s.get) == t for s, t in known) / len(known),
            "per_file_s": doc["median_file_seconds"], "refused": len(tests) - len(kept)}


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
    enrol_times, train_times, refused = [], [], []
    for name, files in speakers.items():
        try:
            out, _ = run([earshot, "voice", "enroll", name, "--json"] + files, env)
            enrol_times.append(json.loads(out)["seconds"])
            train_times.append(json.loads(out)["training_seconds"])
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
    result["head_training_s_max"] = max(train_times)
    result["identify_s_per_file"] = seconds / (len(tests) + result_skipped)
    return result


def ten_second_clips(files, count, tmp):
    """count clips of exactly 10 s, each made of consecutive utterances joined."""
    clips, queue = [], list(files)
    for i in range(count):
        parts = []
        while sum(float(subprocess.run(["soxi", "-D", p], capture_output=True, text=True).stdout) for p in parts) < 10:
            parts.append(queue.pop(0))
        out = os.path.join(tmp, f"clip{i}.wav")
        subprocess.run(["sox"] + parts + ["-r", "16000", "-c", "1", out, "trim", "0", "10"], check=True)
        clips.append(out)
    return clips


def speed(earshot, env, files, tmp):
    """Whole CLI runs (model loading included), median of 3: enrol from 5 x 10 s clips, verify a 10 s clip."""
    clips = ten_second_clips(files, 6, tmp)
    enrolments = [run([earshot, "voice", "enroll", "speed", "--json"] + clips[:5], env) for _ in range(3)]
    enrol = sorted(seconds for _, seconds in enrolments)[1]
    training = sorted(json.loads(out)["training_seconds"] for out, _ in enrolments)[1]
    verify = sorted(run([earshot, "voice", "verify", "speed", clips[5], "--json"], env, check=False)[1] for _ in range(3))[1]
    result = {"enrol_5x10s_s": enrol, "head_training_s": training, "verify_10s_s": verify}
    if os.path.exists(RESEMBLYZER):
        code = ("import time,warnings,sys;warnings.filterwarnings('ignore');import numpy as np;"
                "from resemblyzer import VoiceEncoder,preprocess_wav;t=time.perf_counter();e=VoiceEncoder('cpu',verbose=False);"
                "c=np.mean([e.embed_utterance(preprocess_wav(f)) for f in sys.argv[1:6]],0);t1=time.perf_counter();"
                "e.embed_utterance(preprocess_wav(sys.argv[6]));print(t1-t,time.perf_counter()-t1)")
        times = [tuple(map(float, run([RESEMBLYZER, "-c", code] + clips, os.environ)[0].split())) for _ in range(3)]
        result["resemblyzer_enrol_5x10s_s"] = sorted(t[0] for t in times)[1]
        result["resemblyzer_verify_10s_s"] = sorted(t[1] for t in times)[1]
    return result


def main():
    earshot = os.path.join(ROOT, ".build/release/earshot")
    data = os.environ.get("EARSHOT_DATA") or os.path.join(os.path.dirname(ROOT), "shared", "data")
    if not os.path.isdir(os.path.join(data, "speech")):
        print("skipping: ../shared/data is not here")
        return
    home = HOME
    rows = []
    speech = os.path.join(data, "speech")
    read_files = [os.path.join(speech, r["path"]) for r in csv.DictReader(open(os.path.join(speech, "transcripts.tsv")), delimiter="\t")
                  if r["speaker"] == "dctts_m"]
    if "--speed-only" not in sys.argv[1:]:
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
            r["resemblyzer"] = resemblyzer({s: fs[:5] for s, fs in by_speaker.items()}, tests, tmp)
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
            r["resemblyzer"] = resemblyzer(enrol, tests, tmp)
            rows.append(dict(task="FSDD digits: 6 speakers, 5 clips each", **r))
            print(json.dumps(rows[-1]), flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, EARSHOT_HOME=overlay(home, tmp))
        timing = speed(earshot, env, read_files[5:], tmp)
        print(json.dumps(timing), flush=True)
    os.makedirs(os.path.join(ROOT, "bench/results"), exist_ok=True)
    json.dump({"tasks": rows, "speed": timing}, open(os.path.join(ROOT, "bench/results/voice.json"), "w"), indent=2)
    print("\n| task | enrolled | EER trained head | EER centroid cosine | EER Resemblyzer | identification (Earshot / Resemblyzer) "
          "| trials | head training (max) | per file (Earshot identify / Resemblyzer) |")
    print("|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        z = r["resemblyzer"] or {}
        print(f"| {r['task']} | {r['enrolled']} | {r['eer_probability'] * 100:.2f}% | {r['eer_cosine'] * 100:.2f}% | "
              f"{z.get('eer', float('nan')) * 100:.2f}% | {r['identification'] * 100:.1f}% / {z.get('identification', float('nan')) * 100:.1f}% | "
              f"{r['trials']} | {r['head_training_s_max']:.3f} s | {r['identify_s_per_file']:.3f} s / {z.get('per_file_s', float('nan')):.3f} s |")
    print(f"\nspeed (whole runs, median of 3): enrol 5 x 10 s {timing['enrol_5x10s_s']:.2f} s (head training "
          f"{timing['head_training_s']:.3f} s), verify 10 s {timing['verify_10s_s']:.2f} s; "
          f"Resemblyzer in-process: enrol {timing.get('resemblyzer_enrol_5x10s_s', float('nan')):.2f} s, "
          f"verify {timing.get('resemblyzer_verify_10s_s', float('nan')):.2f} s")

if __name__ == "__main__":
    main()
