#!/usr/bin/env python3
"""Diarization benchmark (make bench): `earshot diarize` against the d-vector recipe, side by side.

Conversations of 2-4 LibriSpeech speakers with known turns (tools/conversations.py, seed 11: a set the
defaults were not chosen on; seed 7 was), scored by `earshot score` (DER, collar 0.25 s and none, overlap
counted). Earshot finds the number of speakers itself; the recipe (Resemblyzer partials + webrtcvad +
average linkage, bench/resemblyzer_diarize.py, in the Resemblyzer venv scripts/bench.sh makes) runs both
with the true count and with a threshold. Speed: compute seconds per audio minute, the whole `earshot
diarize` run over every file (one model load) against the recipe's in-process time per file.

Enrolled people scored by name: bench/named_diarization.py.

Then a real recording: pyannote.audio's 30 s two-speaker sample and its reference RTTM (read out of the
pinned wheel scripts/bench.sh downloads; nothing of pyannote runs), with the count found and given.
"""
import glob
import json
import os
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HOME = os.environ.get("EARSHOT_HOME") or os.path.expanduser("~/.cache/earshot")
EARSHOT = os.path.join(ROOT, ".build", "release", "earshot")
RESEMBLYZER = os.path.join(HOME, "resemblyzer-venv", "bin", "python")


def score(reference, hypothesis, collar):
    out = subprocess.run([EARSHOT, "score", "--json", "--collar", str(collar), reference, hypothesis],
                         capture_output=True, text=True)
    return json.loads(out.stdout)["total"]


def joined(folder, stems, out):
    with open(out, "w") as f:
        for stem in stems:
            path = os.path.join(folder, stem + ".rttm")
            if os.path.exists(path):
                f.write(open(path).read())
    return out


def real_sample(tmp):
    """pyannote.audio's sample recording and reference from its wheel in EARSHOT_HOME/downloads, or None."""
    import zipfile
    wheels = sorted(glob.glob(os.path.join(HOME, "downloads", "pyannote_audio-3.3.2-*.whl")))
    if not wheels:
        print("pyannote's sample is not downloaded (scripts/bench.sh downloads it): the real recording is left out", flush=True)
        return None
    with zipfile.ZipFile(wheels[0]) as z:
        for name in ("sample.wav", "sample.rttm"):
            with open(os.path.join(tmp, name), "wb") as f:
                f.write(z.read("pyannote/audio/sample/" + name))
    return os.path.join(tmp, "sample.wav"), os.path.join(tmp, "sample.rttm")


def main():
    seed = int(os.environ.get("DIARIZATION_SEED", "11"))
    count = int(os.environ.get("DIARIZATION_COUNT", "16"))
    with tempfile.TemporaryDirectory() as tmp:
        data = os.path.join(tmp, "conversations")
        built = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "conversations.py"), data,
                                "--count", str(count), "--seed", str(seed)], capture_output=True, text=True)
        if built.returncode != 0:
            print(built.stderr.strip() or "could not build the conversations", file=sys.stderr)
            return 0 if built.returncode == 2 else 1
        stems = sorted(f[:-4] for f in os.listdir(data) if f.endswith(".wav"))
        wavs = [os.path.join(data, s + ".wav") for s in stems]
        audio_minutes = 0.0
        true_counts = {}
        for s in stems:
            lines = [l.split() for l in open(os.path.join(data, s + ".rttm"))]
            true_counts[s] = len({l[7] for l in lines})
        import wave
        for w in wavs:
            with wave.open(w) as f:
                audio_minutes += f.getnframes() / f.getframerate() / 60
        reference = joined(data, stems, os.path.join(tmp, "reference.rttm"))

        results = {}
        hyp = os.path.join(tmp, "earshot")
        os.makedirs(hyp)
        started = time.perf_counter()
        subprocess.run([EARSHOT, "diarize", "--no-names", "--no-progress", "--output", hyp] + wavs, check=True,
                       capture_output=True)
        seconds = time.perf_counter() - started
        found = {s: len({l.split()[7] for l in open(os.path.join(hyp, s + ".rttm"))}) for s in stems}
        results["earshot (count found)"] = {
            "der_collar_0.25": score(reference, joined(hyp, stems, os.path.join(tmp, "e.rttm")), 0.25)["der"],
            "der_collar_0": score(reference, os.path.join(tmp, "e.rttm"), 0)["der"],
            "count_right": sum(found[s] == true_counts[s] for s in stems),
            "seconds_per_audio_minute": seconds / audio_minutes,
        }
        if os.path.exists(RESEMBLYZER):
            for name, extra in [("d-vector recipe (true count)", ["--oracle"]), ("d-vector recipe (threshold)", [])]:
                out = os.path.join(tmp, "rz" + str(len(extra)))
                os.makedirs(out)
                run = subprocess.run([RESEMBLYZER, os.path.join(ROOT, "bench", "resemblyzer_diarize.py"), out] + extra + wavs,
                                     capture_output=True, text=True, check=True)
                compute = sum(json.loads(l)["seconds"] for l in run.stdout.splitlines() if l.startswith("{"))
                counts = {s: len({l.split()[7] for l in open(os.path.join(out, s + ".rttm"))}) for s in stems}
                results[name] = {
                    "der_collar_0.25": score(reference, joined(out, stems, os.path.join(tmp, "r.rttm")), 0.25)["der"],
                    "der_collar_0": score(reference, os.path.join(tmp, "r.rttm"), 0)["der"],
                    "count_right": sum(counts[s] == true_counts[s] for s in stems),
                    "seconds_per_audio_minute": compute / audio_minutes,
                }
        else:
            print("Resemblyzer is not installed (scripts/bench.sh installs it): the recipe is left out", flush=True)

        sample = real_sample(tmp)
        if sample:
            wav, rttm = sample
            for name, extra in [("earshot, pyannote sample (count found)", []), ("earshot, pyannote sample (count given)", ["--num-speakers", "2"])]:
                out = os.path.join(tmp, "sample-" + str(len(extra)) + ".rttm")
                with open(out, "w") as f:
                    subprocess.run([EARSHOT, "diarize", "--no-names", "--no-progress"] + extra + [wav], check=True, stdout=f)
                lines = open(out).read().split("\n")
                results[name] = {"der_collar_0.25": score(rttm, out, 0.25)["der"], "der_collar_0": score(rttm, out, 0)["der"],
                                 "speakers_found": len({l.split()[7] for l in lines if l.startswith("SPEAKER")})}

    os.makedirs(os.path.join(ROOT, "bench", "results"), exist_ok=True)
    with open(os.path.join(ROOT, "bench", "results", "diarization.json"), "w") as f:
        json.dump({"seed": seed, "conversations": count, "audio_minutes": audio_minutes, "results": results}, f, indent=2)
    print(f"\nDiarization: {count} conversations of 2-4 LibriSpeech speakers (seed {seed}), {audio_minutes:.1f} min\n")
    print("| system | DER collar 0.25 | DER no collar | speaker count right | compute s / audio min |")
    print("|---|---|---|---|---|")
    for name, r in results.items():
        if "count_right" in r:
            print(f"| {name} | {r['der_collar_0.25'] * 100:.2f}% | {r['der_collar_0'] * 100:.2f}% | "
                  f"{r['count_right']}/{count} | {r['seconds_per_audio_minute']:.2f} |")
        else:
            print(f"| {name} | {r['der_collar_0.25'] * 100:.2f}% | {r['der_collar_0'] * 100:.2f}% | "
                  f"{r['speakers_found']} found of 2 | |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
