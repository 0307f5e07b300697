#!/usr/bin/env python3
"""Search by meaning: which cosine is a match (make bench). Runs in a private EARSHOT_HOME overlay.

The notes and queries of bench/data/search-quality.json go into a fresh notes store, and `earshot notes process`
embeds them all with the shipped MiniLM (a query as a note of its own, titled with the query alone: the embedding
stage then embeds the same text that a search embeds). Reports, for several cosine floors, how many of the pairs of
a query and a note it is about stay matches, and how many of the pairs of a query and any other note. The floor
Earshot uses is `NotesSearch.meaningFloor`.
"""
import json
import os
import sqlite3
import subprocess
import tempfile

import numpy as np

from notes import EARSHOT, ROOT, overlay


def embeddings(home, texts, tmp):
    """Each text's embedding, as `earshot notes process` stores it (title only, no transcript)."""
    env = dict(os.environ, EARSHOT_HOME=home)
    tone = os.path.join(tmp, "tone.wav")
    subprocess.run(["sox", "-n", "-r", "16000", "-c", "1", tone, "synth", "0.5", "sine", "440"], check=True)
    for _ in texts:
        subprocess.run([EARSHOT, "notes", "add", tone], check=True, capture_output=True, env=env)
    db = sqlite3.connect(os.path.join(home, "notes", "notes.db"))
    ids = [row[0] for row in db.execute("SELECT id FROM notes ORDER BY id")]
    with db:
        for id, (title, transcript) in zip(ids, texts):
            db.execute("UPDATE notes SET title = ?, title_by = 'user', transcript = ? WHERE id = ?", (title, transcript, id))
            db.execute("UPDATE stages SET state = 'done', completions = 1 WHERE note_id = ? AND stage != 'embed'", (id,))
    subprocess.run([EARSHOT, "notes", "process"], check=True, capture_output=True, env=env)
    vectors = [np.frombuffer(db.execute("SELECT embedding FROM notes WHERE id = ?", (id,)).fetchone()[0], np.float32) for id in ids]
    db.close()
    return np.stack(vectors)


def main():
    data = json.load(open(os.path.join(ROOT, "bench/data/search-quality.json")))
    notes, queries = data["notes"], data["queries"]
    with tempfile.TemporaryDirectory() as tmp:
        vectors = embeddings(overlay(tmp), notes + [[q, ""] for q, _ in queries], tmp)
    n, q = vectors[:len(notes)], vectors[len(notes):]
    cosines = (q / np.linalg.norm(q, axis=1, keepdims=True)) @ (n / np.linalg.norm(n, axis=1, keepdims=True)).T
    related = np.array([cosines[i, j] for i, (_, about) in enumerate(queries) for j in about])
    other = np.array([cosines[i, j] for i, (_, about) in enumerate(queries) for j in range(len(notes)) if j not in about])
    print(f"{len(notes)} notes, {len(queries)} queries ({sum(1 for _, a in queries if a)} about some note): "
          f"{len(related)} related pairs, {len(other)} others")
    print(f"cosine of related pairs: min {related.min():.3f}, median {np.median(related):.3f}; "
          f"of others: median {np.median(other):.3f}, 95th percentile {np.percentile(other, 95):.3f}, max {other.max():.3f}\n")
    print("| floor | related pairs kept | other pairs kept |\n|---|---|---|")
    for floor in (0.0, 0.1, 0.15, 0.2, 0.25, 0.3):
        print(f"| {floor:.2f} | {(related >= floor).sum()} of {len(related)} | {(other >= floor).sum()} of {len(other)} |")


if __name__ == "__main__":
    main()
