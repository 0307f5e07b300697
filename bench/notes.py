#!/usr/bin/env python3
"""Voice notes benchmark (make bench). Runs in a private EARSHOT_HOME overlay (the user's notes are untouched).

1. Search latency on a generated 10,000-note store, inside one process (.build/release/earshot-bench):
   full-text (FTS5), by meaning (MiniLM query embedding + dot products), both fused, and side by side a
   plain LIKE scan over the same text. The notes' text is generated from topic sentences; their embeddings
   are random unit vectors (search cost does not depend on the values; quality is tested in NotesPipelineTests).
2. `earshot notes add` of a 10-minute recording: wall time of the whole command until the note is saved.
3. Title + summary + action items for a 1-minute transcript: `notes retry --stage summarise`, default and
   small model, 2 threads, median of 3, with the tokens/s the pipeline reports.
"""
import json
import os
import random
import re
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HOME = os.environ.get("EARSHOT_HOME") or os.path.expanduser("~/.cache/earshot")
EARSHOT = os.path.join(ROOT, ".build/release/earshot")
BENCH = os.path.join(ROOT, ".build/release/earshot-bench")

TOPICS = {
    "work": "meeting budget launch deadline client report slides quarter marketing invoice contract team review",
    "home": "groceries milk bread garden fence plumber laundry kitchen paint rent dinner kids school",
    "travel": "flight hotel passport train museum beach tickets luggage Lisbon Paris café itinerary tram",
    "health": "run kilometres knee doctor appointment sleep training gym stretch diet vitamins dentist",
    "ideas": "story novel character lighthouse letters chapter plot poem song melody painting sketch",
}
FILLER = "the a we I need to and for on with this next should will about maybe then also really".split()


def sentence(rng, topic):
    words = TOPICS[topic].split()
    return " ".join(rng.choice(words if rng.random() < 0.4 else FILLER) for _ in range(rng.randint(8, 16))).capitalize() + "."


def generate_store(home, count):
    subprocess.run([EARSHOT, "notes", "list"], check=True, capture_output=True, env=dict(os.environ, EARSHOT_HOME=home))
    db = sqlite3.connect(os.path.join(home, "notes", "notes.db"))
    rng = random.Random(7)
    vectors = np.random.default_rng(7).normal(size=(count, 384)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    start = time.time() - count * 3600
    with db:
        for i in range(count):
            topic = rng.choice(list(TOPICS))
            transcript = " ".join(sentence(rng, topic) for _ in range(rng.randint(5, 12)))
            db.execute("INSERT INTO notes (created, source_name, audio_file, duration, title, title_by, summary, transcript, embedding)"
                       " VALUES (?, ?, ?, ?, ?, 'llm', ?, ?, ?)",
                       (start + i * 3600, f"gen{i}.wav", f"gen{i}.wav", 60.0, " ".join(rng.sample(TOPICS[topic].split(), 3)).title(),
                        sentence(rng, topic), transcript, vectors[i].tobytes()))
            note = db.execute("SELECT last_insert_rowid()").fetchone()[0]
            db.executemany("INSERT INTO stages (note_id, stage, position, state, completions) VALUES (?, ?, ?, 'done', 1)",
                           [(note, s, p) for p, s in enumerate(["transcribe", "summarise", "embed"])])
    db.close()


def percentile(values, q):
    return float(np.percentile(np.array(values), q))


def search_latency(home):
    generate_store(home, 10_000)
    queries = ["budget", "cafe", "knee doctor", "lighthouse letters", "passport flight hotel", "garden fence plumber"]
    out = subprocess.run([BENCH, "notes-search", os.path.join(home, "notes"), "10"] + queries, check=True, capture_output=True,
                         text=True, env=dict(os.environ, EARSHOT_HOME=home)).stdout
    doc = json.loads(out)
    return {mode: {"p50_ms": percentile(v, 50), "p95_ms": percentile(v, 95)} for mode, v in doc["latency_ms"].items()} | {"notes": doc["notes"]}


def add_latency(home, tmp):
    speech = os.path.join(tmp, "speech.wav")
    subprocess.run(["espeak-ng", "-w", speech, "Ten minutes of a long recording, spoken again and again to fill the time."], check=True)
    long = os.path.join(tmp, "ten-minutes.wav")
    subprocess.run(["sox", speech, "-r", "16000", "-c", "1", long, "repeat", "120", "trim", "0", "600"], check=True)
    env = dict(os.environ, EARSHOT_HOME=home)
    times = []
    for _ in range(5):
        t = time.perf_counter()
        subprocess.run([EARSHOT, "notes", "add", long], check=True, capture_output=True, env=env)
        times.append(time.perf_counter() - t)
    listed = json.loads(subprocess.run([EARSHOT, "notes", "list", "--json"], check=True, capture_output=True, text=True, env=env).stdout)
    assert sum(n["source"] == "ten-minutes.wav" for n in listed) == 5
    return {"median_s": statistics.median(times), "max_s": max(times)}


MINUTE = ("Notes from the planning meeting on Wednesday. We agreed to move the product launch to the first week of June, "
          "because the payment integration is still failing in testing. Maria will contact the payment provider and ask "
          "for a fix by the end of next week. The marketing team needs the final screenshots before the fifteenth of May, "
          "so Daniel should freeze the design on Monday. We also talked about the budget: travel costs are twenty percent "
          "over plan, and from now on every trip needs approval from the department head. Finally, the office move is "
          "confirmed for July. Everyone has to pack their desk the Friday before, and I need to book the removal company "
          "and tell the building manager about the parking permits.")


def summarise_latency(home, tmp):
    env = dict(os.environ, EARSHOT_HOME=home)
    wav = os.path.join(tmp, "minute.wav")
    subprocess.run(["espeak-ng", "-s", "150", "-w", wav, MINUTE], check=True)
    duration = float(subprocess.run(["soxi", "-D", wav], capture_output=True, text=True).stdout)
    out = subprocess.run([EARSHOT, "notes", "add", wav, "--wait", "--json", "--llm", "small"], check=True, capture_output=True,
                         text=True, env=env).stdout
    note = str(json.loads(out)[0]["id"])
    result = {"recording_s": duration}
    for model in ["default", "small"]:
        runs = []
        for _ in range(3):
            err = subprocess.run([EARSHOT, "notes", "retry", note, "--stage", "summarise", "--llm", model], check=True,
                                 capture_output=True, text=True, env=env).stderr
            m = re.search(r"summarise… done \(([\d.]+) s; (\d+) tokens generated, ([\d.]+) tokens/s", err)
            runs.append((float(m.group(1)), int(m.group(2)), float(m.group(3))))
        shown = json.loads(subprocess.run([EARSHOT, "notes", "show", note, "--json"], check=True, capture_output=True,
                                          text=True, env=env).stdout)
        result[model] = {"median_s": statistics.median(r[0] for r in runs), "tokens": runs[0][1],
                         "tokens_per_s": statistics.median(r[2] for r in runs),
                         "title": shown["title"], "summary": shown["summary"], "actions": shown["actions"]}
    return result


def overlay(tmp):
    home = os.path.join(tmp, "home")
    os.makedirs(home)
    for name in ("runtime", "models"):
        os.symlink(os.path.join(HOME, name), os.path.join(home, name))
    return home


def main():
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        results["search"] = search_latency(overlay(tmp))
        print(json.dumps(results["search"]), flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        results["add_10_min"] = add_latency(overlay(tmp), tmp)
        print(json.dumps(results["add_10_min"]), flush=True)
    if "--no-llm" not in sys.argv[1:]:
        with tempfile.TemporaryDirectory() as tmp:
            results["summarise_1_min"] = summarise_latency(overlay(tmp), tmp)
            print(json.dumps(results["summarise_1_min"]), flush=True)
    os.makedirs(os.path.join(ROOT, "bench/results"), exist_ok=True)
    json.dump(results, open(os.path.join(ROOT, "bench/results/notes.json"), "w"), indent=2)
    s = results["search"]
    print("\n| search on 10,000 notes | p50 | p95 |\n|---|---|---|")
    for mode in ["words", "meaning", "both", "like"]:
        print(f"| {mode} | {s[mode]['p50_ms']:.2f} ms | {s[mode]['p95_ms']:.2f} ms |")
    # LIKE with LIMIT stops at the 10th match (newest first), so common words are quick and rare ones scan
    # everything: compare the slow end
    print(f"\nFTS5 vs LIKE scan at p95: {s['like']['p95_ms'] / s['words']['p95_ms']:.1f}x faster")
    print(f"notes add, 10-minute WAV: median {results['add_10_min']['median_s'] * 1000:.0f} ms (whole command)")
    for model, r in results.get("summarise_1_min", {}).items():
        if isinstance(r, dict):
            print(f"title+summary+actions, {model} model: median {r['median_s']:.1f} s, {r['tokens']} tokens, {r['tokens_per_s']:.1f} tokens/s")


if __name__ == "__main__":
    main()
