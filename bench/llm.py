#!/usr/bin/env python3
"""Language models (make bench): the runner process against llama.cpp's own llama-bench, and note quality.

1. Speed: prompt and generation tokens/s of each installed model through `earshot-language-runner` (as the notes
   pipeline runs it) and inside one process, beside `llama-bench` built from the same llama.cpp source with the
   same instruction sets (into EARSHOT_HOME/bench/llama-bench), 2 threads. llama-bench is run twice for prompts:
   with its defaults (512-token batches, weights repacked as for generation) and as Earshot reads prompts: in
   256-token batches (fixed chunks give the same answer however a prompt was reached) with the weights in their
   plain layout (`PromptReader`).
2. Quality and time on a judged set (bench/data/judged-notes.json: 20 transcripts of meetings, reminders, ideas
   and calls): titles the model wrote vs key-word fallbacks, action items naming their owner and their date where
   the note says them, seconds per note (title + summary + action items); and the same notes written in one process
   without and with prompt-lookup decoding, side by side; then three notes of a minute's speech each
   (bench/data/minute-notes.json) through the runner.
usage: python3 bench/llm.py [--models default,small] [--rounds N] [--skip-speed] [--skip-notes]
"""
import argparse
import glob
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HOME = os.environ.get("EARSHOT_HOME") or os.path.expanduser("~/.cache/earshot")
BENCH = os.path.join(ROOT, ".build/release/earshot-bench")
MODELS = {"default": "models/llm/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf", "small": "models/llm/SmolLM2-135M-Instruct.Q4_1.gguf"}


def build_llama_bench():
    """llama-bench from the sdist setup built libllama from, with the same cmake options (read from build-llama.sh's record)."""
    out = os.path.join(HOME, "bench/llama-bench")
    sdist = glob.glob(os.path.join(HOME, "downloads/llama_cpp_python-*.tar.gz"))[0]
    isa = open(os.path.join(HOME, "runtime/llama/instruction-sets.txt")).read().split()[1:]
    stamp = os.path.join(out, ".stamp")
    want = sdist + " " + " ".join(isa)
    if os.path.exists(stamp) and open(stamp).read() == want:
        return os.path.join(out, "llama-bench")
    print("==> building llama-bench from the same llama.cpp source (a few minutes)", flush=True)
    work = tempfile.mkdtemp()
    try:
        subprocess.run(["tar", "xzf", sdist, "-C", work], check=True)
        src = glob.glob(os.path.join(work, "llama_cpp_python-*/vendor/llama.cpp"))[0]
        flags = "-mno-amx-tile -mno-amx-int8 -mno-amx-bf16"
        subprocess.run(["cmake", "-S", src, "-B", os.path.join(work, "build"), "-DCMAKE_BUILD_TYPE=Release", "-DBUILD_SHARED_LIBS=OFF",
                        "-DLLAMA_CURL=OFF", "-DGGML_NATIVE=OFF", "-DGGML_OPENMP=OFF", f"-DCMAKE_C_FLAGS={flags}", f"-DCMAKE_CXX_FLAGS={flags}",
                        "-DLLAMA_BUILD_TESTS=OFF", "-DLLAMA_BUILD_EXAMPLES=OFF", "-DLLAMA_BUILD_SERVER=OFF"] + isa,
                       check=True, stdout=subprocess.DEVNULL)
        subprocess.run(["cmake", "--build", os.path.join(work, "build"), "--target", "llama-bench", "-j", str(os.cpu_count())],
                       check=True, stdout=subprocess.DEVNULL)
        os.makedirs(out, exist_ok=True)
        shutil.copy(os.path.join(work, "build/bin/llama-bench"), out)
        open(stamp, "w").write(want)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return os.path.join(out, "llama-bench")


def llama_bench(binary, model, batch=None):
    """Prompt and generation tokens/s; `batch`: prompts read in batches of that many tokens, weights not repacked."""
    args = [binary, "-m", os.path.join(HOME, model), "-t", "2", "-p", "512", "-n", "64", "-r", "3", "-o", "json"]
    if batch:
        args += ["-b", str(batch), "-ub", str(batch), "--repack", "0"]
    rows = json.loads(subprocess.run(args, check=True, capture_output=True, text=True).stdout)
    prompt = next(r["avg_ts"] for r in rows if r["n_prompt"] > 0)
    gen = next(r["avg_ts"] for r in rows if r["n_gen"] > 0)
    return prompt, gen


def speed(models, rounds):
    """Each round runs llama-bench and then Earshot, one right after the other; the table gives the medians over the
    rounds, and the ratio is the median of the rounds' own ratios: this machine's speed drifts by ±20% over minutes,
    so only values measured side by side compare."""
    binary = build_llama_bench()
    print(f"\n{rounds} alternating rounds, medians\n")
    print("| model | llama-bench prompt (512 batch) | llama-bench prompt (256 batch, plain layout) | runner prompt | in-process prompt | "
          "llama-bench generation | runner generation | in-process generation | runner / llama-bench generation |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name in models:
        cells = {k: [] for k in ("pp512", "pp256", "tg", "rp", "ip", "rg", "ig", "ratio")}
        for _ in range(rounds):
            pp512, tg = llama_bench(binary, MODELS[name])
            pp256, _ = llama_bench(binary, MODELS[name], batch=256)
            ours = json.loads(subprocess.run([BENCH, "llm-speed", name], check=True, capture_output=True, text=True).stdout)
            r, i = ours["runner"], ours["in_process"]
            for k, v in zip(cells, (pp512, pp256, tg, r["prompt_tokens_per_s"], i["prompt_tokens_per_s"],
                                    r["generation_tokens_per_s"], i["generation_tokens_per_s"], r["generation_tokens_per_s"] / tg)):
                cells[k].append(v)
        m = {k: statistics.median(v) for k, v in cells.items()}
        print(f"| {name} | {m['pp512']:.0f} | {m['pp256']:.0f} | {m['rp']:.0f} | {m['ip']:.0f} | {m['tg']:.1f} | "
              f"{m['rg']:.1f} | {m['ig']:.1f} | {m['ratio']:.2f} (rounds: {', '.join(f'{x:.2f}' for x in cells['ratio'])}) |", flush=True)


def mentions(actions, word):
    return any(re.search(r"\b" + re.escape(word.lower()) + r"\b", a.lower()) for a in actions)


def invented(result, transcript):
    """Action items that start with a name ("Tom: ...") the transcript never says."""
    names = [m.group(1) for a in result["actions"] for m in [re.match(r"\s*([A-Z][a-z]+):", a)] if m]
    return sum(1 for n in names if n.lower() not in transcript.lower())


def judge_minute_notes(name, extra=()):
    """Three notes of about 150 words (a minute of speech) through the runner, right after the judged set: seconds per
    note, owners and dates kept, as one table row's cells."""
    path = os.path.join(ROOT, "bench/data/minute-notes.json")
    judged = json.load(open(path))
    run = subprocess.run([BENCH, "llm-notes", name, path] + list(extra), check=True, capture_output=True, text=True)
    results = [json.loads(line) for line in run.stdout.splitlines() if line.startswith("{")]
    owners, dates = kept(results, judged)
    seconds = ", ".join("%.1f" % r["seconds"] for r in results)
    return f"{seconds} | {owners} | {dates}"


def kept(results, judged):
    """Action items naming their owner, and their date, where the note says them: two "found/asked" cells."""
    owners = [(r, a["owner"]) for r, j in zip(results, judged) for a in j["actions"] if a["owner"]]
    dates = [(r, a["date"]) for r, j in zip(results, judged) for a in j["actions"] if a["date"]]
    return (f"{sum(mentions(r['actions'], o) for r, o in owners)}/{len(owners)}",
            f"{sum(mentions(r['actions'], d) for r, d in dates)}/{len(dates)}")


def notes(models):
    judged = json.load(open(os.path.join(ROOT, "bench/data/judged-notes.json")))
    print("\n| model | titles by the model | actions with their owner | actions with their date | invented owners | "
          "seconds per note (median) | slowest |")
    print("|---|---|---|---|---|---|---|")
    examples, lookup, minute, notes_same = {}, {}, {}, []
    # each model as the pipeline runs it (its runner, prompt lookup on, a note's three questions decoded together), the
    # same with the questions asked one after the other, then in this process without and with prompt lookup, side by
    # side: the seconds each saves and whether the notes come out the same
    alone = ["--one-at-a-time"]
    runs = [(name, label, draft, extra) for name in models
            for label, draft, extra in [(name, None, []), (f"{name}, questions one at a time", None, alone),
                                        (f"{name}, in process, prompt lookup off", "0", []), (f"{name}, in process, prompt lookup on", "3", [])]]
    for name, label, draft, extra in runs:
        run = subprocess.run([BENCH, "llm-notes", name, os.path.join(ROOT, "bench/data/judged-notes.json")] + ([draft] if draft else []) + extra,
                             check=True, capture_output=True, text=True)
        results = [json.loads(line) for line in run.stdout.splitlines() if line.startswith("{")]
        if draft:
            lookup[(name, draft)] = results
        owners, dates = kept(results, judged)
        seconds = [r["seconds"] for r in results]
        print(f"| {label} | {sum(r['title_by_model'] for r in results)}/{len(results)} | "
              f"{owners} | {dates} | "
              f"{sum(invented(r, j['transcript']) for r, j in zip(results, judged))} | "
              f"{statistics.median(seconds):.1f} | {max(seconds):.1f} |", flush=True)
        if not draft:
            minute[label] = judge_minute_notes(name, extra)
            if not extra:
                examples[name] = results
            else:
                same = sum((a["title"], a["summary"], a["actions"]) == (b["title"], b["summary"], b["actions"]) for a, b in zip(examples[name], results))
                notes_same.append(f"{name}: {same} of {len(results)} judged notes written the same with the questions asked together "
                                  "and one at a time (batches of another size round near-ties another way)")
    for line in notes_same:
        print("\n" + line)
    print("\n| model | one-minute notes (bench/data/minute-notes.json), seconds each | actions with their owner | with their date |")
    print("|---|---|---|---|")
    for label in minute:
        print(f"| {label} | {minute[label]} |", flush=True)
    for name in models:
        off, on = lookup[(name, "0")], lookup[(name, "3")]
        same = sum((a["title"], a["summary"], a["actions"]) == (b["title"], b["summary"], b["actions"]) for a, b in zip(off, on))
        ratios = [b["seconds"] / a["seconds"] for a, b in zip(off, on)]
        guessed = sum(r["guessed_tokens_kept"] for r in on) / max(1, sum(r["generated_tokens"] for r in on))
        print(f"\n{name}: prompt lookup on / off, median per-note ratio {statistics.median(ratios):.2f}; {guessed:.0%} of the generated "
              f"tokens were guessed; {same} of {len(on)} notes written the same", flush=True)
    print("\nTitles side by side (first five notes):\n")
    print("| note | " + " | ".join(models) + " |")
    print("|---|" + "---|" * len(models))
    for k in range(5):
        cells = [examples[m][k]["title"] + ("" if examples[m][k]["title_by_model"] else " (key words)") for m in models]
        print(f"| {judged[k]['transcript'][:60]}… | " + " | ".join(cells) + " |")
    print("\nAction items of the first note:")
    for m in models:
        print(f"- {m}: {examples[m][0]['actions']}")
    os.makedirs(os.path.join(ROOT, "bench/results"), exist_ok=True)
    json.dump(examples, open(os.path.join(ROOT, "bench/results/llm-notes.json"), "w"), indent=1)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", default="default,small")
    parser.add_argument("--skip-speed", action="store_true")
    parser.add_argument("--skip-notes", action="store_true")
    parser.add_argument("--rounds", type=int, default=3, help="alternating llama-bench / Earshot rounds for the speed table")
    args = parser.parse_args()
    models = [m for m in args.models.split(",") if os.path.exists(os.path.join(HOME, MODELS[m]))]
    if not os.path.exists(BENCH):
        sys.exit(f"{BENCH} is missing: run `swift build -c release --product earshot-bench` (make bench does)")
    if not args.skip_speed:
        speed(models, max(1, args.rounds))
    if not args.skip_notes:
        notes(models)


if __name__ == "__main__":
    main()
