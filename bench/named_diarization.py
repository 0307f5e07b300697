#!/usr/bin/env python3
"""Enrolled people named in conversations (make bench): DER scored by name against DER with the best mapping.

Eight people are enrolled from five clips each (`earshot voice enroll`, in a private EARSHOT_HOME beside the
installed models): the six FSDD speakers (a clip being ten of their digits) and the two read-speech speakers of
../shared/data/speech (an utterance each). Then conversations of 2-4 of them, from other clips, in turns joined with
pauses (the reference RTTM written as they are joined), half of them with a LibriSpeech stranger who must stay
`SPEAKER_nn`, go through `earshot diarize` as a user runs it. Scored with `earshot score` (collar 0.25): once with
the best one-to-one mapping of voices to speakers (found without names), once by name (`--by-name`: an enrolled
person counts as right only under their own name; strangers are mapped among the unnamed voices). Also printed:
each enrolled person's voices named right, named wrong and left unnamed.

Usage: named_diarization.py [--conversations N] [--seed S] [--keep DIR] [--name-thresholds 0.5,0.6,...]
"""
import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile

import numpy as np

from real_voices import DATA, RATE, fsdd_speakers, read, read_speech_files, write

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HOME = os.environ.get("EARSHOT_HOME") or os.path.expanduser("~/.cache/earshot")
EARSHOT = os.path.join(ROOT, ".build", "release", "earshot")
NAMES = {"george": "George", "jackson": "Jackson", "lucas": "Lucas", "nicolas": "Nicolas", "theo": "Theo", "yweweler": "Yara"}


def people(rng):
    """Each person's clips (audio arrays), shuffled: the first five enrol them, the rest are their turns."""
    fsdd = fsdd_speakers()
    result = {}
    for speaker, paths in sorted(fsdd.items()):
        rng.shuffle(paths)
        clips = []
        for k in range(13):  # 5 to enrol, 8 turns
            parts = []
            for p in paths[k * 10:(k + 1) * 10]:
                parts += [read(p), np.zeros(int(0.15 * RATE), np.float32)]
            clips.append(np.concatenate(parts))
        result[NAMES.get(speaker, speaker.title())] = clips
    for name, files in (("Mark", read_speech_files()["mark"]), ("Linda", read_speech_files()["linda"])):
        rng.shuffle(files)
        result[name] = [read(os.path.join(DATA, "speech", f)) for f in files[:13]]
    return result


def strangers():
    with open(os.path.join(DATA, "librispeech-speakers", "manifest.csv")) as f:
        next(f)
        return [os.path.join(DATA, "librispeech-speakers", line.split(",")[0]) for line in f]


def overlay(tmp):
    """A private EARSHOT_HOME: the installed runtimes, models and background voices, nobody enrolled, no notes."""
    home = os.path.join(tmp, "home")
    os.makedirs(os.path.join(home, "voice"))
    for d in os.listdir(HOME):
        if d not in ("voice", "notes"):
            os.symlink(os.path.join(HOME, d), os.path.join(home, d))
    for d in ("background", "cache"):
        if os.path.exists(os.path.join(HOME, "voice", d)):
            os.symlink(os.path.join(HOME, "voice", d), os.path.join(home, "voice", d))
    return home


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--conversations", type=int, default=8)
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument("--keep", help="keep the recordings, references and hypotheses in this folder")
    parser.add_argument("--name-thresholds", default="default",
                        help="comma-separated cosines to name voices at (`earshot diarize --name-threshold`), or default")
    args = parser.parse_args()
    if not os.path.isdir(os.path.join(DATA, "fsdd")):
        print(f"named diarization: skipped ({DATA} is absent)")
        return 0
    rng = random.Random(args.seed)
    tmp = args.keep or tempfile.mkdtemp()
    os.makedirs(tmp, exist_ok=True)
    try:
        env = dict(os.environ, EARSHOT_HOME=overlay(tmp))
        everyone = people(rng)
        for name, clips in everyone.items():
            paths = []
            for k, x in enumerate(clips[:5]):
                paths.append(os.path.join(tmp, f"enrol-{name}-{k}.wav"))
                write(paths[-1], x / np.abs(x).max() * 0.5)
            subprocess.run([EARSHOT, "voice", "enroll", name] + paths, env=env, check=True, capture_output=True)
        others = strangers()
        rng.shuffle(others)
        stems, used = [], {name: 5 for name in everyone}
        for n in range(args.conversations):
            cast = rng.sample(sorted(everyone), rng.choice([2, 3, 4]))
            turns = []
            for name in cast:
                for _ in range(2):
                    turns.append((name, everyone[name][used[name] % 13]))
                    used[name] += 1
            if n % 2 == 0:
                turns.append(("stranger", read(others[n])))
            for _ in range(100):
                rng.shuffle(turns)
                if all(turns[i][0] != turns[i + 1][0] for i in range(len(turns) - 1)):
                    break
            audio, t, reference = [np.zeros(RATE // 2, np.float32)], 0.5, []
            for name, x in turns:
                label = "SPEAKER_90" if name == "stranger" else name
                reference.append(f"SPEAKER c{n} 1 {t:.3f} {len(x) / RATE:.3f} <NA> <NA> {label} <NA> <NA>\n")
                gap = rng.uniform(0.3, 0.9)
                audio += [x / np.abs(x).max() * 0.5, np.zeros(int(gap * RATE), np.float32)]
                t += len(x) / RATE + gap
            write(os.path.join(tmp, f"c{n}.wav"), np.concatenate(audio))
            with open(os.path.join(tmp, f"c{n}.rttm"), "w") as f:
                f.writelines(reference)
            stems.append(f"c{n}")
        ref_all = os.path.join(tmp, "ref.rttm")
        with open(ref_all, "w") as r:
            for s in stems:
                r.write(open(os.path.join(tmp, s + ".rttm")).read())
        print(f"\nNamed diarization: {len(everyone)} people enrolled (5 clips each), {len(stems)} conversations of 2-4 of them "
              f"(seed {args.seed}), a stranger in half\n")
        print("| naming threshold | DER, best mapping (collar 0.25) | DER by name | enrolled voices named right | left unnamed | "
              "names given to someone else |")
        print("|---|---|---|---|---|---|")
        for threshold in args.name_thresholds.split(","):
            hyp = os.path.join(tmp, "hyp" + threshold)
            os.makedirs(hyp, exist_ok=True)
            extra = ["--name-threshold", threshold] if threshold != "default" else []
            subprocess.run([EARSHOT, "diarize", "--no-progress", "--output", hyp] + extra + [os.path.join(tmp, s + ".wav") for s in stems],
                           env=env, check=True, capture_output=True)
            hyp_all = os.path.join(hyp, "all.rttm")
            with open(hyp_all, "w") as h:
                for s in stems:
                    h.write(open(os.path.join(hyp, s + ".rttm")).read())

            def der(extra):
                out = subprocess.run([EARSHOT, "score", "--json", "--collar", "0.25"] + extra + [ref_all, hyp_all],
                                     env=env, capture_output=True, text=True, check=True)
                return json.loads(out.stdout)["total"]["der"]

            unnamed, named = der([]), der(["--by-name"])
            right = wrong = missing = 0
            for s in stems:
                truth = {l.split()[7] for l in open(os.path.join(tmp, s + ".rttm"))} - {"SPEAKER_90"}
                said = {l.split()[7] for l in open(os.path.join(hyp, s + ".rttm"))}
                right += len(truth & said)
                missing += len(truth - said)
                wrong += len({x for x in said if not x.startswith("SPEAKER_")} - truth)
            print(f"| {threshold} | {unnamed * 100:.2f}% | {named * 100:.2f}% | {right}/{right + missing} | {missing} | {wrong} |",
                  flush=True)
    finally:
        if not args.keep:
            shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
