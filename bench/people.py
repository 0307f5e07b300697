#!/usr/bin/env python3
"""People benchmark (make bench): are voices linked across notes to the right person?

Builds notes of 2-3 real voices taking turns (clips joined with pauses, the true speaker of every turn written down
as it is joined): 8 voices that recur across notes (the 6 FSDD speakers, a turn being ten of their digits; the two
read-speech speakers of ../shared/data/speech, a turn being one utterance) and, in some notes, a LibriSpeech
stranger heard once. Every note goes through the product as a user's would (`earshot notes add`, `earshot notes
process`, in a private EARSHOT_HOME overlay without a language model), then `earshot people list --json` says which
person each voice of each note was linked to. Each voice is matched to its true speaker by its turns
(`earshot diarize --json`, the same call the pipeline makes); over every pair of voices from two notes:
precision = pairs linked to one person that are one speaker / pairs linked, recall = pairs of one speaker linked
/ pairs of one speaker. Also printed: the voiceprint cosines (as stored in notes.db) of one speaker's voices and
of two speakers', which the threshold is chosen from.

Usage: people.py [--notes N] [--seed S] [--keep DIR]
"""
import argparse
import json
import os
import random
import shutil
import sqlite3
import subprocess
import sys
import tempfile

import numpy as np

from real_voices import DATA, RATE, fsdd_speakers, read, read_speech_files, write

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HOME = os.environ.get("EARSHOT_HOME") or os.path.expanduser("~/.cache/earshot")
EARSHOT = os.path.join(ROOT, ".build", "release", "earshot")


def voices(rng):
    """Each recurring voice: a function giving one turn of theirs (audio), and the strangers' clips."""
    fsdd = fsdd_speakers()
    read_speech = read_speech_files()

    def digits(speaker):
        parts = []
        for path in rng.sample(fsdd[speaker], 10):
            parts += [read(path), np.zeros(int(0.15 * RATE), np.float32)]
        return np.concatenate(parts)

    def utterance(speaker):
        return read(os.path.join(DATA, "speech", rng.choice(read_speech[speaker])))

    turns = {s: (lambda s=s: digits(s)) for s in sorted(fsdd)}
    turns.update({s: (lambda s=s: utterance(s)) for s in read_speech})
    libri = os.path.join(DATA, "librispeech-speakers")
    strangers = sorted(f for f in os.listdir(libri) if f.endswith(".flac"))
    rng.shuffle(strangers)
    return turns, [os.path.join(libri, s) for s in strangers]


def build(folder, count, rng):
    """Writes n01.wav… and returns each note's true turns [(start, end, speaker)]."""
    turns, strangers = voices(rng)
    recurring = sorted(turns)
    truth = {}
    for n in range(count):
        people = rng.sample(recurring, rng.choice([2, 2, 3]))
        if n % 3 == 0:
            people.append("stranger-" + os.path.basename(strangers[n]).split("-")[0])
        order = people + people  # each voice twice, never twice in a row
        rng.shuffle(order)
        while any(order[i] == order[i + 1] for i in range(len(order) - 1)):
            rng.shuffle(order)
        audio, t, reference = [np.zeros(RATE // 2, np.float32)], 0.5, []
        for speaker in order:
            x = read(strangers[n]) if speaker.startswith("stranger") else turns[speaker]()
            if speaker.startswith("stranger") and reference and any(r[2] == speaker for r in reference):
                x = x[len(x) // 2:]  # the stranger's second turn: the other half of their one clip
            elif speaker.startswith("stranger"):
                x = x[:len(x) // 2]
            reference.append((t, t + len(x) / RATE, speaker))
            gap = rng.uniform(0.5, 1.0)
            audio += [x / max(1e-6, np.abs(x).max()) * 0.5, np.zeros(int(gap * RATE), np.float32)]
            t += len(x) / RATE + gap
        name = f"n{n + 1:02d}"
        write(os.path.join(folder, name + ".wav"), np.concatenate(audio))
        truth[name] = reference
    return truth


def overlay(tmp):
    """A private EARSHOT_HOME with the installed runtimes and models, but no language model (no summaries to wait
    for) and no enrolled voices."""
    home = os.path.join(tmp, "home")
    os.makedirs(os.path.join(home, "models"))
    for d in ("runtime",):
        os.symlink(os.path.join(HOME, d), os.path.join(home, d))
    for m in os.listdir(os.path.join(HOME, "models")):
        if m != "llm":
            os.symlink(os.path.join(HOME, "models", m), os.path.join(home, "models", m))
    return home


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--notes", type=int, default=40)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--keep", help="keep the notes store and recordings in this folder")
    args = parser.parse_args()
    if not os.path.isdir(os.path.join(DATA, "fsdd")):
        print(f"people: {DATA} has no fsdd/ (the shared evaluation data): skipped")
        return 0
    tmp = tempfile.mkdtemp(prefix="earshot-people-")
    try:
        rng = random.Random(args.seed)
        folder = os.path.join(tmp, "notes-audio")
        os.makedirs(folder)
        truth = build(folder, args.notes, rng)
        env = dict(os.environ, EARSHOT_HOME=overlay(tmp))
        ids = {}
        for name in sorted(truth):
            out = subprocess.run([EARSHOT, "notes", "add", os.path.join(folder, name + ".wav")], env=env, check=True,
                                 capture_output=True, text=True).stdout
            ids[int(out.split()[1].rstrip(":"))] = name
        subprocess.run([EARSHOT, "notes", "process", "--model", "tiny.en"], env=env, check=True, capture_output=True)
        people = json.loads(subprocess.run([EARSHOT, "people", "list", "--json"], env=env, check=True,
                                           capture_output=True, text=True).stdout)
        # each voice (note, label) → its true speaker, by the diarizer's turns
        labels = {}
        for note, name in ids.items():
            d = json.loads(subprocess.run([EARSHOT, "diarize", "--json", "--no-progress", os.path.join(folder, name + ".wav")],
                                          env=env, check=True, capture_output=True, text=True).stdout)
            overlap = {}
            for turn in d["turns"]:
                for start, end, speaker in truth[name]:
                    o = min(end, turn["end"]) - max(start, turn["start"])
                    if o > 0:
                        overlap.setdefault(turn["speaker"], {}).setdefault(speaker, 0)
                        overlap[turn["speaker"]][speaker] += o
            for label, by in overlap.items():
                labels[(note, label)] = max(by, key=by.get)
        voices = []  # (note, label, person, true speaker)
        for person in people:
            for a in person["appearances"]:
                voices.append((a["note"], a["label"], person["id"], labels.get((a["note"], a["label"]))))
        tp = fp = fn = 0
        for i in range(len(voices)):
            for j in range(i + 1, len(voices)):
                a, b = voices[i], voices[j]
                if a[0] == b[0] or a[3] is None or b[3] is None:
                    continue
                same, linked = a[3] == b[3], a[2] == b[2]
                tp += same and linked
                fp += linked and not same
                fn += same and not linked
        precision = tp / max(1, tp + fp)
        recall = tp / max(1, tp + fn)
        speakers = sorted({v[3] for v in voices if v[3]})
        recurring = [s for s in speakers if not s.startswith("stranger")]
        print(f"{len(ids)} notes, {len(voices)} voices, {len(speakers)} true speakers ({len(recurring)} recurring), "
              f"{len(people)} people found")
        print(f"pairwise linking: precision {precision:.3f} ({tp} of {tp + fp} linked pairs), "
              f"recall {recall:.3f} ({tp} of {tp + fn} same-speaker pairs)")
        for s in recurring:
            mine = sorted({v[2] for v in voices if v[3] == s})
            print(f"  {s}: {sum(v[3] == s for v in voices)} voices in {len(mine)} person(s)")
        for person in sorted({v[2] for v in voices}):
            theirs = sorted({v[3] or "?" for v in voices if v[2] == person})
            if len(theirs) > 1:
                print(f"  person {person} is {len(theirs)} speakers: " + ", ".join(
                    f"{s} ({sum(v[2] == person and (v[3] or '?') == s for v in voices)})" for s in theirs))
        # the stored voiceprints: one speaker's across notes against two speakers'
        db = sqlite3.connect(os.path.join(env["EARSHOT_HOME"], "notes", "notes.db"))
        prints = []
        for note, label, seconds, blob in db.execute("SELECT note_id, label, seconds, voiceprint FROM voices"):
            if blob and labels.get((note, label)) and seconds >= 3:
                prints.append((note, labels[(note, label)], np.frombuffer(blob, dtype=np.float32)))
        same, other = [], []
        for i in range(len(prints)):
            for j in range(i + 1, len(prints)):
                if prints[i][0] != prints[j][0]:
                    c = float(np.dot(prints[i][2], prints[j][2]) / np.linalg.norm(prints[i][2]) / np.linalg.norm(prints[j][2]))
                    (same if prints[i][1] == prints[j][1] else other).append(c)
        for name, values in (("one speaker", same), ("two speakers", other)):
            q = np.percentile(values, [0, 5, 50, 95, 100]) if values else []
            print(f"voiceprint cosine, {name} ({len(values)} pairs): " + " ".join(f"{p:.2f}" for p in q)
                  + "  (min, 5th, median, 95th, max)")
        for t in (0.5, 0.6, 0.7, 0.75, 0.8):
            print(f"  at {t:.2f}: {np.mean(np.array(same) >= t):.3f} of one speaker's pairs above, "
                  f"{np.mean(np.array(other) >= t):.4f} of two speakers'")
        if args.keep:
            with open(os.path.join(tmp, "truth.json"), "w") as f:
                json.dump({"truth": truth, "ids": ids, "voices": voices}, f)
            shutil.copytree(tmp, args.keep, symlinks=True, dirs_exist_ok=True, ignore=shutil.ignore_patterns("*.sock"))
        return 0
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
