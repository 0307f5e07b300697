#!/usr/bin/env python3
"""Asking the notes (make bench): are answers right, do their citations point at the moment that supports them, and
do questions the notes cannot answer get no answer?

The judged set (bench/data/ask-notes.json): 16 notes — memos of one voice and meetings of two or three named people —
recorded over three weeks, and 52 questions: 24 facts, 11 about what a person said, 5 about a span of time ("last
week", "yesterday") and 12 the notes do not answer (most of them close to something they do say). Each note is read
by espeak-ng (one voice per person, the same in every note) and goes through the product: `earshot notes add
--speakers N --date …`, `earshot notes process` (Whisper, the diarizer, the default language model), and its voices
are named once with `earshot notes rename-speaker` (each label by the speaker whose turns it overlaps most), as a
user would. The questions then go to `POST /api/notes/ask` of `earshot serve` as the Notes page asks them
(server-sent events): time to the first token of the answer and to the whole answer.

An answer is right when it is answered and holds one word of each group of the question's words; its citation is
right when one citation is a passage of the supporting note that overlaps the supporting turn; an unanswerable
question is right when the answer says the notes do not say. Beside it, retrieval alone: the closest passage taken
as the answer.

Usage: ask.py [--store DIR]   (DIR: keep the private EARSHOT_HOME there and reuse it when it holds the notes)
"""
import argparse
import datetime
import http.client
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from owners import EARSHOT, ROOT, overlay, speaker_of, synthesise  # noqa: E402
from server import start_server  # noqa: E402

VOICES = {"me": "en-us+m3", "Priya": "en-gb+f4", "Tom": "en-us+m1", "Dana": "en-029+f3", "Marcus": "en-us+m5"}


def show(env, n):
    return json.loads(subprocess.run([EARSHOT, "notes", "show", str(n), "--json"], env=env, check=True, capture_output=True,
                                     text=True).stdout)


def build(home, notes):
    """The notes added, processed and their voices named; returns each note's turn times."""
    env = dict(os.environ, EARSHOT_HOME=home)
    tmp = tempfile.mkdtemp()
    times = []
    today = datetime.date.today()
    try:
        for n, note in enumerate(notes):
            path = os.path.join(tmp, f"note{n:02d}.wav")
            times.append(synthesise(note, path, VOICES))
            count = str(len({t["speaker"] for t in note["turns"]}))
            day = (today - datetime.timedelta(days=note["days_ago"])).isoformat() + "T10:00"
            subprocess.run([EARSHOT, "notes", "add", path, "--speakers", count, "--date", day], env=env, check=True, capture_output=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    started = time.time()
    subprocess.run([EARSHOT, "notes", "process"], env=env, check=True, capture_output=True)
    print(f"  {len(notes)} notes transcribed and summarised in {time.time() - started:.0f} s")
    for n in range(len(notes)):
        note = show(env, n + 1)
        for label in sorted({s.get("speaker") for s in note["segments"] if s.get("speaker")}):
            name = speaker_of(label, note["segments"], times[n])
            if name != label and name != "me":
                subprocess.run([EARSHOT, "notes", "rename-speaker", str(n + 1), label, name], env=env, check=True, capture_output=True)
    subprocess.run([EARSHOT, "notes", "process"], env=env, check=True, capture_output=True)  # summaries with the names
    json.dump(times, open(os.path.join(home, "ask-times.json"), "w"))
    return times


def voices_named(env, notes, times):
    """How many of the notes' voices carry their speaker's name after naming each once (a voice linked to the wrong
    person carries the wrong one)."""
    right = total = 0
    for n in range(len(notes)):
        note = show(env, n + 1)
        for label in {s.get("speaker") for s in note["segments"] if s.get("speaker")}:
            total += 1
            right += speaker_of(label, note["segments"], times[n]) == label
    return right, total


def ask(port, question):
    """The question through the API as the page asks it: (answer, seconds to the first token or None, seconds in all)."""
    started = time.time()
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=900)
    connection.request("POST", "/api/notes/ask", body=json.dumps({"question": question}),
                       headers={"Content-Type": "application/json", "Accept": "text/event-stream"})
    response = connection.getresponse()
    first, answer, event, buffer = None, None, None, b""
    while answer is None:
        line = response.fp.readline()
        if not line:
            break
        line = line.rstrip(b"\n")
        if line.startswith(b"event: "):
            event = line[7:].decode()
        elif line.startswith(b"data: "):
            if event == "token" and first is None:
                first = time.time() - started
            elif event == "done":
                answer = json.loads(line[6:])
            elif event == "error":
                raise RuntimeError(line[6:].decode())
    connection.close()
    return answer, first, time.time() - started


def holds(text, groups):
    text = text.lower()
    return all(any(word in text for word in group) for group in groups)


def cites(passages, question, times):
    if question["note"] is None:
        return False
    note = question["note"] + 1
    for p in passages:
        if p["note"] != note:
            continue
        if question["turn"] is None:
            return True
        start, end, _ = times[question["note"]][question["turn"]]
        if p["start"] < end and p["end"] > start:
            return True
    return False


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--store", help="keep the private EARSHOT_HOME here, and reuse it when it holds the notes")
    args = parser.parse_args()
    data = json.load(open(os.path.join(ROOT, "bench/data/ask-notes.json")))
    notes, questions = data["notes"], data["questions"]
    tmp = tempfile.mkdtemp()
    try:
        base = args.store or tmp
        home = os.path.join(base, "home")
        if args.store and os.path.exists(os.path.join(home, "ask-times.json")):
            times = json.load(open(os.path.join(home, "ask-times.json")))
        else:
            shutil.rmtree(home, ignore_errors=True)
            os.makedirs(base, exist_ok=True)
            times = build(overlay(base), notes)
        env = dict(os.environ, EARSHOT_HOME=home)
        right, total = voices_named(env, notes, times)
        print(f"  voices carrying their speaker's name: {right}/{total}")
        server, port = start_server(home)
        try:
            rows = [(q, *ask(port, q["q"])) for q in questions]
        finally:
            server.terminate()
            server.wait()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    report(rows, times)


def report(rows, times):
    answerable = [r for r in rows if r[0]["note"] is not None]
    unanswerable = [r for r in rows if r[0]["note"] is None]
    right = sum(a["answered"] and holds(a["answer"], q["words"]) for q, a, _, _ in answerable)
    cited = sum(a["answered"] and cites(a["citations"], q, times) for q, a, _, _ in answerable)
    abstained = sum(not a["answered"] for _, a, _, _ in unanswerable)
    top = lambda a: a["passages"][:1]
    alone_right = sum(bool(top(a)) and holds(top(a)[0]["text"], q["words"]) for q, a, _, _ in answerable)
    alone_cited = sum(cites(top(a), q, times) for q, a, _, _ in answerable)
    alone_abstained = sum(not top(a) for _, a, _, _ in unanswerable)
    by_kind = {}
    for q, a, _, _ in answerable:
        k = by_kind.setdefault(q["kind"], [0, 0])
        k[0] += a["answered"] and holds(a["answer"], q["words"])
        k[1] += 1
    firsts = [f for _, _, f, _ in rows if f is not None]
    wholes = [w for _, a, _, w in rows if a.get("reply") is not None]
    n, m = len(answerable), len(unanswerable)
    print(f"\n  {'':34} {'answer right':>14} {'citation right':>15} {'abstains':>10}")
    print(f"  {'ask (retrieval + default model)':34} {right:>3}/{n} {100 * right / n:5.1f}%  {cited:>3}/{n} {100 * cited / n:5.1f}%  "
          f"{abstained:>2}/{m} {100 * abstained / m:3.0f}%")
    print(f"  {'retrieval alone (closest passage)':34} {alone_right:>3}/{n} {100 * alone_right / n:5.1f}%  {alone_cited:>3}/{n} "
          f"{100 * alone_cited / n:5.1f}%  {alone_abstained:>2}/{m} {100 * alone_abstained / m:3.0f}%")
    print("  answer right by kind: " + ", ".join(f"{k} {v[0]}/{v[1]}" for k, v in sorted(by_kind.items())))
    if firsts:
        print(f"  time to first token: median {statistics.median(firsts):.2f} s, max {max(firsts):.2f} s ({len(firsts)} answers written)")
    if wholes:
        print(f"  time to the whole answer: median {statistics.median(wholes):.2f} s, max {max(wholes):.2f} s")
    print("\n  misses:")
    for q, a, _, _ in rows:
        ok = (not a["answered"]) if q["note"] is None else (a["answered"] and holds(a["answer"], q["words"]) and cites(a["citations"], q, times))
        if not ok:
            print(f"    {q['kind']:6} {q['q']}\n           → {a['answer']}  (reply: {a.get('reply')!r}; top: "
                  f"{(a['passages'][0]['text'][:70] + '…') if a['passages'] else '-'})")


if __name__ == "__main__":
    main()
