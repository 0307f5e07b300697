#!/usr/bin/env python3
"""Action items and their owners (make bench): does each commitment land on whoever made it, and does a note
without one get none?

1. Owners, on a judged set (bench/data/owner-notes.json: 22 conversations of 2-3 voices as a labelled note holds
   them, named people and numbered voices, 34 commitments with their true owner — "I'll…" is the speaker's, "Tom,
   can you…" is Tom's, "can you…?" answered by another voice is theirs, "everyone…" is nobody's — and 5 with no
   commitment: a reading, a story, a lecture, two chats). Each note goes through the note writer as the pipeline
   runs it (`earshot-bench llm-notes`, the default model): a commitment is found when an item holds its key words;
   its owner is right when the item's owner is the true one (none for nobody's). Extra items are items matching
   no commitment.
2. The same conversations end to end (`--audio`): each synthesised with espeak-ng, one voice per speaker, turns
   joined with 0.5 s pauses, then through the product (`earshot notes add --speakers N`, `earshot notes process`: Whisper,
   the diarizer, the default language model). Nobody is named, so the notes' voices are numbered; each numbered
   voice is mapped to the speaker whose turns its segments overlap most (as a user naming the voices once would),
   and the owners scored as in 1 — the transcription, the diarization and the owner rules together.
3. No invented items, on real recordings (needs ../shared/data): 10 recordings with no commitment in them —
   LibriSpeech readings of 3-4 speakers (an utterance each) joined with pauses, and the two read-speech speakers' passages — through
   the product (`earshot notes add`, `earshot notes process`, the default language model, in a private
   EARSHOT_HOME beside the installed models): recordings given no action item, and summaries that open by saying
   they are one ("The summary of…", "The voice note discusses…").

Usage: owners.py [--skip-judged] [--audio] [--skip-recordings] [--recordings N] [--seed S]
"""
import argparse
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HOME = os.environ.get("EARSHOT_HOME") or os.path.expanduser("~/.cache/earshot")
BENCH = os.path.join(ROOT, ".build/release/earshot-bench")
EARSHOT = os.path.join(ROOT, ".build/release/earshot")
DATA = os.environ.get("EARSHOT_DATA") or os.path.join(ROOT, "..", "shared", "data")
PREAMBLE = re.compile(r"^\s*(the |a |this is |here is |here's )?(short |brief )?summary\b|^\s*in summary\b"
                      r"|^\s*(the|this) (voice )?(note|recording|transcript) (discusses|describes|is about|talks about)\b", re.I)


def holds(item, words):
    """Whether an item holds every key word (each by its first four letters, so "quotes" is "quote")."""
    text = item.lower()
    return all(all(w[:4] in text for w in phrase.split()) for phrase in words)


def judged():
    path = os.path.join(ROOT, "bench/data/owner-notes.json")
    notes = json.load(open(path))
    run = subprocess.run([BENCH, "llm-notes", "default", path], check=True, capture_output=True, text=True)
    score(notes, [json.loads(line) for line in run.stdout.splitlines() if line.startswith("{")])


def score(notes, results, how="default model"):
    found = right = asked = extra = empty_right = empty = misheard = 0
    misses = []
    for note, result in zip(notes, results):
        items = list(zip(result["actions"], result["owners"]))
        used = set()
        for want in note["actions"]:
            asked += 1
            match = next((i for i, (line, _) in enumerate(items) if i not in used and holds(line, want["words"])), None)
            if match is None:
                # through audio: a commitment whose key words the transcript does not hold was misheard, not dropped
                lost = "transcript" in result and not holds(result["transcript"], want["words"])
                misheard += lost
                misses.append(f"{'misheard' if lost else 'dropped'}: {want['words']} ({note['kind']}) — items: {result['actions']}")
                continue
            used.add(match)
            found += 1
            if (items[match][1] or None) == (want["owner"] or None):
                right += 1
            else:
                misses.append(f"owner: '{items[match][0]}' is {items[match][1] or 'nobody'}'s, not {want['owner'] or 'nobody'}'s")
        extra += len(items) - len(used)
        for i, (line, _) in enumerate(items):
            if i not in used:
                misses.append(f"extra: '{line}' ({note['kind']})")
        if not note["actions"]:
            empty += 1
            empty_right += not items
    seconds = sorted(r["seconds"] for r in results)
    print(f"\n{len(notes)} judged conversations, {asked} commitments, {how}, median {seconds[len(seconds) // 2]:.1f} s a note\n")
    print("| commitments found | owners right (of found) | extra items | notes without commitments given none |")
    print("|---|---|---|---|")
    print(f"| {found}/{asked} ({100 * found / asked:.0f}%) | {right}/{found} ({100 * right / max(1, found):.0f}%) | {extra} | "
          f"{empty_right}/{empty} |")
    if any("transcript" in r for r in results):
        print(f"\nof the {asked - found} not found, {misheard} were misheard (their key words are not in the transcript); "
              f"of those heard, {found}/{asked - misheard} found")
    for m in misses:
        print("  " + m)


# a voice per speaker of a conversation, as unlike each other as espeak-ng's variants go
VOICES = ["en-us+m5", "en-029+f3", "en-gb+f4", "en-us+m1"]


def synthesise(note, out, voices=None):
    """The conversation read aloud, a voice per speaker (`voices`: each speaker's espeak-ng voice; by default the next
    of VOICES), turns 0.5 s apart; returns each turn's (start, end, speaker)."""
    voices = dict(voices or {})
    for turn in note["turns"]:
        voices.setdefault(turn["speaker"], VOICES[len(voices)])
    parts, times, at = [], [], 0.0
    for i, turn in enumerate(note["turns"]):
        raw, part = f"{out}.{i}.raw.wav", f"{out}.{i}.wav"
        subprocess.run(["espeak-ng", "-v", voices[turn["speaker"]], "-w", raw, turn["text"]], check=True)
        subprocess.run(["sox", raw, "-r", "16000", "-c", "1", "-b", "16", part, "pad", "0", "0.5"], check=True)
        seconds = float(subprocess.run(["soxi", "-D", part], check=True, capture_output=True, text=True).stdout)
        times.append((at, at + seconds - 0.5, turn["speaker"]))
        at += seconds
        parts.append(part)
        os.remove(raw)
    subprocess.run(["sox"] + parts + [out], check=True)
    for part in parts:
        os.remove(part)
    return times


def speaker_of(label, segments, times):
    """The true speaker a note's voice label is: the one whose turns its segments overlap most."""
    overlap = {}
    for seg in segments:
        if seg.get("speaker") != label:
            continue
        for start, end, speaker in times:
            overlap[speaker] = overlap.get(speaker, 0) + max(0.0, min(end, seg["end"]) - max(start, seg["start"]))
    return max(overlap, key=overlap.get) if overlap else label


def audio(notes):
    """The judged conversations read aloud, through `earshot notes add` and `earshot notes process`."""
    tmp = tempfile.mkdtemp()
    try:
        env = dict(os.environ, EARSHOT_HOME=overlay(tmp))
        times = []
        for n, note in enumerate(notes):
            path = os.path.join(tmp, f"conversation{n:02d}.wav")
            times.append(synthesise(note, path))
            # espeak-ng's voices sound alike to the diarization network, so each note says how many speak in it
            count = str(len({t["speaker"] for t in note["turns"]}))
            subprocess.run([EARSHOT, "notes", "add", path, "--speakers", count], env=env, check=True, capture_output=True)
        started = time.time()
        subprocess.run([EARSHOT, "notes", "process"], env=env, check=True, capture_output=True)
        each = (time.time() - started) / len(notes)
        results = []
        for n in range(len(notes)):
            note = json.loads(subprocess.run([EARSHOT, "notes", "show", str(n + 1), "--json"], env=env, check=True,
                                             capture_output=True, text=True).stdout)
            mapped = lambda owner: speaker_of(owner, note["segments"], times[n]) if owner else None
            results.append({"actions": [a["text"] for a in note["actions"]], "owners": [mapped(a.get("owner")) for a in note["actions"]],
                            "seconds": each, "transcript": note["transcript"]})
            labels = sorted({s.get("speaker") for s in note["segments"] if s.get("speaker")})
            truth = sorted({t[2] for t in times[n]})
            if len(labels) != len(truth):
                print(f"  conversation {n + 1}: {len(truth)} voices, {len(labels) or 1} found")
        score(notes, results, "read aloud by espeak-ng through `earshot notes process` (Whisper, diarizer, default model)")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def clips():
    """Readings by speaker: LibriSpeech utterances (one per speaker) and the two read-speech speakers' passages."""
    libri = []
    with open(os.path.join(DATA, "librispeech-speakers", "manifest.csv")) as f:
        next(f)
        for line in f:
            path = line.split(",")[0]
            libri.append(os.path.join(DATA, "librispeech-speakers", path))
    speech = sorted(os.listdir(os.path.join(DATA, "speech")))
    return libri, {"m": [os.path.join(DATA, "speech", f) for f in speech if f.startswith("dctts_m")],
                   "f": [os.path.join(DATA, "speech", f) for f in speech if f.startswith("lj_")]}


def join(parts, out):
    """The clips one after the other with 0.6 s pauses, as 16 kHz mono WAV."""
    tmp = [out + f".{i}.wav" for i in range(len(parts))]
    for p, t in zip(parts, tmp):
        subprocess.run(["sox", p, "-r", "16000", "-c", "1", "-b", "16", t, "pad", "0", "0.6"], check=True)
    subprocess.run(["sox"] + tmp + [out], check=True)
    for t in tmp:
        os.remove(t)


def overlay(tmp):
    """A private EARSHOT_HOME: the installed runtimes and models (language models included), its own notes store."""
    home = os.path.join(tmp, "home")
    os.makedirs(home)
    for d in os.listdir(HOME):
        if d not in ("notes", "voices"):
            os.symlink(os.path.join(HOME, d), os.path.join(home, d))
    return home


def recordings(count, seed):
    if not os.path.isdir(DATA):
        print(f"\nno-commitment recordings: skipped ({DATA} is absent)")
        return
    rng = random.Random(seed)
    libri, speech = clips()
    tmp = tempfile.mkdtemp()
    try:
        env = dict(os.environ, EARSHOT_HOME=overlay(tmp))
        made = []
        for n in range(count):
            out = os.path.join(tmp, f"reading{n}.wav")
            if n < 2:
                parts = rng.sample(speech["m" if n == 0 else "f"], 5)
            else:
                parts = rng.sample(libri, rng.choice([3, 4]))
            join(parts, out)
            made.append(out)
        for path in made:
            subprocess.run([EARSHOT, "notes", "add", path], env=env, check=True, capture_output=True)
        subprocess.run([EARSHOT, "notes", "process"], env=env, check=True, capture_output=True)
        listed = json.loads(subprocess.run([EARSHOT, "notes", "list", "--json"], env=env, check=True, capture_output=True,
                                           text=True).stdout)
        none = preambles = 0
        print(f"\n{count} recordings with no commitment in them (readings), through `earshot notes process` (default models)\n")
        print("| recording | seconds | speakers | action items | summary |")
        print("|---|---|---|---|---|")
        for overview in sorted(listed, key=lambda o: o["id"]):
            note = json.loads(subprocess.run([EARSHOT, "notes", "show", str(overview["id"]), "--json"], env=env, check=True,
                                             capture_output=True, text=True).stdout)
            speakers = sorted({s.get("speaker") for s in note["segments"] if s.get("speaker")})
            none += not note["actions"]
            preambles += bool(PREAMBLE.search(note["summary"]))
            items = "; ".join((a["owner"] + ": " if a.get("owner") else "") + a["text"] for a in note["actions"]) or "none"
            print(f"| {note['source']} | {note['duration']:.0f} | {len(speakers) or 1} | {items} | {note['summary'][:90]} |")
        print(f"\nrecordings given no action item: {none}/{count}; summaries opening by saying they are one: {preambles}/{count}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--skip-judged", action="store_true")
    parser.add_argument("--audio", action="store_true", help="also read the judged conversations aloud, end to end")
    parser.add_argument("--skip-recordings", action="store_true")
    parser.add_argument("--recordings", type=int, default=10)
    parser.add_argument("--seed", type=int, default=5)
    args = parser.parse_args()
    for tool in (BENCH, EARSHOT):
        if not os.path.exists(tool):
            sys.exit(f"{tool} is missing: run `swift build -c release` first")
    if not args.skip_judged:
        judged()
    if args.audio:
        audio(json.load(open(os.path.join(ROOT, "bench/data/owner-notes.json"))))
    if not args.skip_recordings:
        recordings(args.recordings, args.seed)


if __name__ == "__main__":
    main()
