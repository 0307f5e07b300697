#!/usr/bin/env python3
"""Live transcription's final lines against the same utterances read as files (make bench).

The 173 read utterances of ../shared/data/speech are joined into one 16 kHz stream, 0.5 s of silence first and
1.5 s after each, built once under $EARSHOT_HOME/bench/live-speech.raw. `earshot listen -` reads it from a pipe
(raw PCM, 100 ms reads; partials come by audio time, so a fast pipe gives what a live one would); each final line is
given to the utterance its middle falls in (or the nearest), and `earshot score` scores them. Beside it, in the
same run: `earshot transcribe` of the same files, the offline reading the live lines are compared with.
Latency: the stream's first 90 s replayed at real speed (`earshot listen --realtime`), the median and the largest
delay from an utterance's last audio to its final line (the 0.5 s of silence that ends an utterance included).
"""
import argparse
import json
import os
import statistics
import subprocess
import sys


ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RATE = 16000


def speech_dir():
    base = os.environ.get("EARSHOT_DATA") or os.path.join(os.path.dirname(ROOT), "shared", "data")
    path = os.path.join(base, "speech")
    return path if os.path.isfile(os.path.join(path, "transcripts.tsv")) else None


def utterances(speech):
    with open(os.path.join(speech, "transcripts.tsv")) as f:
        header = f.readline().rstrip("\n").split("\t")
        return [dict(zip(header, line.rstrip("\n").split("\t")))["path"] for line in f if line.strip()]


def stream(speech, home):
    """The joined stream (built once) and each utterance's (file, start, end) in seconds."""
    folder = os.path.join(home, "bench")
    raw, spans_path = os.path.join(folder, "live-speech.raw"), os.path.join(folder, "live-speech.json")
    if os.path.exists(raw) and os.path.exists(spans_path):
        with open(spans_path) as f:
            return raw, json.load(f)
    os.makedirs(folder, exist_ok=True)
    print(f"==> joining the utterances into {raw}", flush=True)
    silence = b"\0\0"  # one 16-bit sample
    parts, spans, at = [silence * (RATE // 2)], [], 0.5
    for name in utterances(speech):
        pcm = subprocess.run(["sox", os.path.join(speech, name), "-D", "-r", str(RATE), "-c", "1", "-b", "16", "-e", "signed",
                              "-t", "raw", "-"], capture_output=True, check=True).stdout
        samples = len(pcm) // 2
        spans.append([name, at, at + samples / RATE])
        parts += [pcm, silence * (RATE * 3 // 2)]
        at += samples / RATE + 1.5
    with open(raw + ".partial", "wb") as f:
        f.write(b"".join(parts))
    with open(spans_path + ".partial", "w") as f:
        json.dump(spans, f)
    os.replace(spans_path + ".partial", spans_path)
    os.replace(raw + ".partial", raw)
    return raw, spans


def score(earshot, speech, hypotheses):
    out = subprocess.run([earshot, "score", "--json", os.path.join(speech, "transcripts.tsv"), hypotheses],
                         capture_output=True, text=True, check=True).stdout
    result = json.loads(out)
    return result["errors"], result["words"]


def live_finals(earshot, model, raw, spans, folder):
    with open(raw, "rb") as pcm:
        out = subprocess.run([earshot, "listen", "-", "--json", "--model", model], stdin=pcm, capture_output=True,
                             text=True, check=True).stdout
    finals = [e for e in map(json.loads, filter(str.strip, out.splitlines())) if e["type"] == "final"]
    path = os.path.join(folder, f"live-{model}.tsv")
    write_by_utterance(path, spans, [(final["start"], final["end"], final["text"]) for final in finals])
    return path, len(finals)


def write_by_utterance(path, spans, timed):
    """Texts [(start, end, text)] of the joined stream, each given to the utterance its middle falls in (or the
    nearest), written as the hypotheses TSV `earshot score` reads."""
    texts = {name: [] for name, _, _ in spans}
    for start, end, text in timed:
        middle = (start + end) / 2
        name = min(spans, key=lambda s: 0 if s[1] <= middle <= s[2] else min(abs(middle - s[1]), abs(middle - s[2])))[0]
        texts[name].append(text)
    with open(path, "w") as f:
        f.write("path\ttranscript\n")
        for name, said in texts.items():
            f.write(f"{name}\t{' '.join(said).replace(chr(9), ' ')}\n")


def delays(earshot, model, raw, folder):
    wav = os.path.join(folder, "live-speech-90s.wav")
    if not os.path.exists(wav):
        subprocess.run(["sox", "-r", str(RATE), "-c", "1", "-b", "16", "-e", "signed", "-t", "raw", raw, wav, "trim", "0", "90"],
                       check=True, capture_output=True)
    out = subprocess.run([earshot, "listen", "--realtime", "--json", "--model", model, wav], capture_output=True, text=True,
                         check=True).stdout
    return [e["delay"] for e in map(json.loads, filter(str.strip, out.splitlines())) if e["type"] == "final"]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--models", default="tiny.en,base")
    ap.add_argument("--earshot", default=os.path.join(ROOT, ".build/release/earshot"))
    ap.add_argument("--out", default=os.path.join(ROOT, "bench/results/live"))
    args = ap.parse_args()
    speech = speech_dir()
    if not speech:
        print("live benchmark skipped: ../shared/data/speech is absent (set EARSHOT_DATA)")
        return 0
    home = os.environ.get("EARSHOT_HOME") or os.path.expanduser("~/.cache/earshot")
    os.makedirs(args.out, exist_ok=True)
    raw, spans = stream(speech, home)
    files = [os.path.join(speech, name) for name, _, _ in spans]
    rows = []
    for model in args.models.split(","):
        print(f"==> {model}: live from a pipe, {spans[-1][2] / 60:.1f} min", flush=True)
        live_path, finals = live_finals(args.earshot, model, raw, spans, args.out)
        live_errors, words = score(args.earshot, speech, live_path)
        file_path = os.path.join(args.out, f"files-{model}.json")
        with open(file_path, "w") as f:
            subprocess.run([args.earshot, "transcribe", "--json", "--no-progress", "--model", model] + files, stdout=f, check=True)
        file_errors, _ = score(args.earshot, speech, file_path)
        waits = delays(args.earshot, model, raw, args.out)
        rows.append((model, finals, live_errors, file_errors, words, statistics.median(waits), max(waits), len(waits)))
    print("\n| model | final lines | live WER (errors) | the same files transcribed | live / files | final-line delay, median (largest) |")
    print("|---|---|---|---|---|---|")
    for model, finals, live_errors, file_errors, words, median, largest, n in rows:
        print(f"| {model} | {finals} | {100 * live_errors / words:.2f}% ({live_errors}) | {100 * file_errors / words:.2f}% "
              f"({file_errors}) | {live_errors / max(1, file_errors):.2f} | {median:.2f} s ({largest:.2f} s, {n} lines) |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
