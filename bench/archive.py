#!/usr/bin/env python3
"""Throughput of archives: the plain CLI, `earshot batch`, shards without Ray, and earshot_ray on one and on two
Ray nodes, over the same files (make bench; run with $EARSHOT_HOME/ray-venv/bin/python).

Each configuration transcribes the same files (../shared/data/speech, every --every-th utterance) with tiny.en
(greedy) from a cold process, model load included; passes alternate so noise hits them alike. Reports audio
seconds per wall second (median), Ray's overhead against the CLI on the same cores, and the scaling efficiency
of two one-CPU nodes against one. Every configuration's transcripts are checked identical to the CLI's."""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "integrations", "ray"))

import pyarrow.parquet as pq  # noqa: E402
import ray  # noqa: E402
from ray.cluster_utils import Cluster  # noqa: E402

from earshot_ray import transcribe  # noqa: E402
from earshot_ray.tasks import LARGEST  # noqa: E402


def speech_files(every):
    base = os.environ.get("EARSHOT_DATA") or os.path.join(os.path.dirname(ROOT), "shared", "data")
    folder = os.path.join(base, "speech")
    if not os.path.isdir(folder):
        return None
    return sorted(os.path.join(folder, f) for f in os.listdir(folder) if f.endswith(".flac"))[::every]


def cli(earshot, files, threads):
    out = subprocess.run([earshot, "transcribe", "--json", "--no-progress", "--threads", str(threads), *files],
                         check=True, capture_output=True, text=True).stdout
    return {d["source"]: d["text"] for d in json.loads(out)}


def batch(earshot, files, threads):
    jobs = "".join(json.dumps({"id": f, "path": f}) + "\n" for f in files)
    out = subprocess.run([earshot, "batch", "--threads", str(threads)], input=jobs, check=True, capture_output=True,
                         text=True).stdout
    return {r["id"]: r["text"] for r in map(json.loads, out.splitlines())}


def shards(earshot, files, count):
    """`count` processes of `earshot batch --shard I/N --threads 1` side by side over a manifest."""
    with tempfile.TemporaryDirectory() as work:
        manifest = os.path.join(work, "files.txt")
        with open(manifest, "w") as handle:
            handle.write("\n".join(files) + "\n")
        running = [subprocess.Popen([earshot, "batch", "--threads", "1", "--shard", f"{i}/{count}", "--output",
                                     os.path.join(work, "out"), "--no-progress", manifest],
                                    stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True) for i in range(count)]
        texts = {}
        for process in running:
            out, _ = process.communicate()
            texts.update({r["id"]: r["text"] for r in map(json.loads, out.splitlines())})
        return texts


def on_cluster(cluster, earshot, files, workers, threads, largest_task=LARGEST):
    """on_ray from a driver connected to `cluster` for this run only (the connection's time is Ray's)."""
    ray.init(address=cluster.address, logging_level="WARNING", log_to_driver=False)
    try:
        return on_ray(earshot, files, workers, threads, largest_task)
    finally:
        ray.shutdown()


def on_ray(earshot, files, workers, threads, largest_task):
    with tempfile.TemporaryDirectory() as work:
        manifest = os.path.join(work, "files.txt")
        with open(manifest, "w") as handle:
            handle.write("\n".join(files) + "\n")
        transcribe(manifest, os.path.join(work, "out"), workers=workers, threads_per_worker=threads, earshot=earshot,
                   largest_task=largest_task, progress=None)
        return {r["path"]: r["text"] for r in pq.read_table(os.path.join(work, "out")).to_pylist()}


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--earshot", default=os.path.join(ROOT, ".build/release/earshot"))
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--every", type=int, default=2, help="take every n-th utterance (default 2: 87 files)")
    ap.add_argument("--out", default=os.path.join(ROOT, "bench/results"))
    ap.add_argument("--pairs", type=int, metavar="N",
                    help="instead: N alternating pairs on one 2-CPU Ray node, each Ray layout right after the same "
                         "cores without Ray (transcribe --threads 2 then Ray 1 × 2; two shards then Ray 2 × 1), the ratio "
                         "per pair and their median: this machine's speed drifts by ±20%% over minutes, which "
                         "separate phases would count as overhead")
    ap.add_argument("--also-largest-task", type=int, metavar="N",
                    help=f"run each Ray configuration a second time with at most N files per Ray task (earshot_ray's "
                         f"own choice: up to {LARGEST}, one at the end; 1 = one file per task, as before)")
    args = ap.parse_args()
    files = speech_files(args.every)
    if files is None:
        print("skipping the archive benchmark: ../shared/data/speech (or $EARSHOT_DATA/speech) is not here")
        return 0
    audio = sum(float(subprocess.run(["soxi", "-D", f], capture_output=True, text=True).stdout) for f in files)
    runs = f"{args.pairs} alternating pairs" if args.pairs else f"{args.runs} passes"
    print(f"==> archive throughput: {len(files)} files, {audio:.0f} s of audio, tiny.en greedy, {runs}")

    # the clusters start as docs/scale.md starts one (`ray start --disable-usage-stats`): no usage reporting
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    if args.pairs:
        return pairs(args, files)

    def ray_run(workers, threads, largest_task=LARGEST):
        return lambda cluster: on_cluster(cluster, args.earshot, files, workers, threads, largest_task)

    variant = f" (≤ {args.also_largest_task} files per task)"

    def ray_configurations(shapes):
        """(name, workers, threads) as earshot_ray ships, and again with --also-largest-task's files per task"""
        configurations = [(name, ray_run(workers, threads)) for name, workers, threads in shapes]
        if args.also_largest_task:
            configurations += [(name + variant, ray_run(workers, threads, args.also_largest_task))
                               for name, workers, threads in shapes]
        return configurations

    def plain(run):
        return lambda cluster: run()

    # three phases, each cluster up only for its own (two idle clusters side by side slowed the runs): without Ray,
    # Ray on one node with both CPUs, Ray on two nodes of one CPU each; passes alternate within a phase
    phases = [
        (None, [("earshot transcribe --threads 2", plain(lambda: cli(args.earshot, files, 2))),
                ("earshot batch --threads 2", plain(lambda: batch(args.earshot, files, 2))),
                ("earshot batch --threads 1", plain(lambda: batch(args.earshot, files, 1))),
                ("2 × earshot batch --shard I/2 --threads 1", plain(lambda: shards(args.earshot, files, 2)))]),
        ([2], ray_configurations([("Ray, 1 node: 1 worker × 2 threads", 1, 2), ("Ray, 1 node: 2 workers × 1 thread", 2, 1)])),
        ([1, 1], ray_configurations([("Ray, 2 nodes: 1 worker × 1 thread", 1, 1),
                                     ("Ray, 2 nodes: 2 workers × 1 thread", 2, 1)])),
    ]
    times, mismatches, reference = {}, {}, None
    for nodes, configurations in phases:
        cluster = None
        if nodes:
            cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": nodes[0]})
            for cpus in nodes[1:]:
                cluster.add_node(num_cpus=cpus)
            cluster.wait_for_nodes()
        try:
            for _ in range(args.runs):
                for name, run in configurations:
                    start = time.perf_counter()
                    texts = run(cluster)
                    times.setdefault(name, []).append(time.perf_counter() - start)
                    reference = reference or texts
                    mismatches[name] = sum(texts.get(f) != reference[f] for f in files)
        finally:
            if cluster:
                cluster.shutdown()

    median = {name: statistics.median(t) for name, t in times.items()}
    rate = {name: audio / median[name] for name in median}
    print("| configuration | median wall time | audio s per wall s | transcripts unlike the CLI's |")
    print("|---|---|---|---|")
    for name in times:
        print(f"| {name} | {median[name]:.1f} s | {rate[name]:.1f} | {mismatches[name]} |")
    # what two busy cores of this one machine allow without Ray: two shards against one process
    ceiling = rate["2 × earshot batch --shard I/2 --threads 1"] / (2 * rate["earshot batch --threads 1"])
    figures = {}
    for suffix in [""] + ([variant] if args.also_largest_task else []):
        overhead_1x2 = median["Ray, 1 node: 1 worker × 2 threads" + suffix] / median["earshot transcribe --threads 2"] - 1
        overhead_2x1 = (median["Ray, 1 node: 2 workers × 1 thread" + suffix]
                        / median["2 × earshot batch --shard I/2 --threads 1"] - 1)
        efficiency = rate["Ray, 2 nodes: 2 workers × 1 thread" + suffix] / (2 * rate["Ray, 2 nodes: 1 worker × 1 thread" + suffix])
        figures[suffix.strip() or "earshot_ray"] = {"overhead_1x2": overhead_1x2, "overhead_2x1": overhead_2x1,
                                                    "efficiency": efficiency}
        print(f"{suffix.strip() or 'earshot_ray as shipped'}: Ray overhead over the CLI on the same 2 cores: "
              f"{overhead_1x2 * 100:+.1f}% (1 × 2 vs transcribe --threads 2), {overhead_2x1 * 100:+.1f}% (2 × 1 vs two "
              f"shards); two-node scaling efficiency (2 workers on 2 one-CPU nodes vs 1): {efficiency:.2f}, the same "
              f"machine without Ray (2 shards vs 1 process, both single-threaded): {ceiling:.2f}, Ray's share: "
              f"{efficiency / ceiling:.2f}")
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "archive.json"), "w") as handle:
        json.dump({"files": len(files), "audio_seconds": audio, "times": times, "mismatches": mismatches,
                   "figures": figures, "ceiling": ceiling}, handle, indent=2)
    return 0


def pairs(args, files):
    """--pairs: Ray's overhead as the median ratio of runs made one right after the other on the same cores."""
    layouts = [("1 worker × 2 threads against earshot transcribe --threads 2",
                lambda: cli(args.earshot, files, 2), 1, 2),
               ("2 workers × 1 thread against 2 × earshot batch --shard I/2 --threads 1",
                lambda: shards(args.earshot, files, 2), 2, 1)]
    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 2})
    cluster.wait_for_nodes()
    ratios = {name: [] for name, *_ in layouts}
    try:
        for i in range(args.pairs):
            for name, plain_run, workers, threads in layouts:
                start = time.perf_counter()
                reference = plain_run()
                plain = time.perf_counter() - start
                start = time.perf_counter()
                texts = on_cluster(cluster, args.earshot, files, workers, threads)
                on = time.perf_counter() - start
                ratios[name].append(on / plain)
                unlike = sum(texts.get(f) != reference[f] for f in files)
                print(f"pair {i + 1}, {name}: {plain:.1f} s, Ray {on:.1f} s, ratio {on / plain:.3f}, "
                      f"{unlike} transcripts unlike", flush=True)
    finally:
        cluster.shutdown()
    for name, values in ratios.items():
        print(f"Ray {name}: median ratio {statistics.median(values):.3f} over {len(values)} pairs "
              f"({', '.join(f'{v:.2f}' for v in sorted(values))})")
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "archive-pairs.json"), "w") as handle:
        json.dump({"files": len(files), "ratios": ratios}, handle, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
