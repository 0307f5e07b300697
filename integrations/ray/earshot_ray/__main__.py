"""python -m earshot_ray transcribe INPUT --output OUT [--address auto] [--workers N] [--threads-per-worker T]
[--tasks transcribe,words,...] [--earshot PATH]"""

import argparse
import json
import sys

from .pipeline import transcribe

TASKS = ["transcribe", "words", "speakers", "diarize", "sounds"]

EXAMPLES = """examples:
  python -m earshot_ray transcribe /archive/meetings --output meetings.parquet
  python -m earshot_ray transcribe manifest.txt --output out.parquet --address auto --workers 32 --threads-per-worker 1
  python -m earshot_ray transcribe podcasts/ --output pods.parquet --tasks transcribe,words,speakers --model base

Rerunning with the same --output skips every file already there; --retry-failed tries the failed ones again.
Read the result with pyarrow.parquet.read_table(OUT) or pandas.read_parquet(OUT).
"""


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m earshot_ray", description="Earshot workers on a Ray cluster.")
    commands = parser.add_subparsers(dest="command", required=True)
    run = commands.add_parser("transcribe", help="run a folder or manifest of recordings through Earshot into Parquet",
                              epilog=EXAMPLES, formatter_class=argparse.RawDescriptionHelpFormatter)
    run.add_argument("input", help="a folder (searched at all depths) or a manifest (one path or JSON job per line)")
    run.add_argument("--output", required=True, help="the Parquet dataset folder (created; resumed when it exists)")
    run.add_argument("--address", help="Ray cluster to join ('auto': the one this node belongs to); default: start a local one")
    run.add_argument("--workers", type=int, help="Earshot workers (actors); default: the cluster's CPUs / threads per worker")
    run.add_argument("--threads-per-worker", type=int, default=1,
                     help="CPU threads per worker (its num_cpus), default 1: more one-thread workers read more audio per core")
    run.add_argument("--tasks", default="transcribe", help=f"comma-separated: {', '.join(TASKS)} (default transcribe)")
    run.add_argument("--model", help="Whisper model: tiny.en (default) or base")
    run.add_argument("--language", help="spoken language (default en; auto detects; base only for others)")
    run.add_argument("--options", help="more job options as JSON, e.g. '{\"beam_size\": 5, \"num_speakers\": 2}'")
    run.add_argument("--earshot", help="the earshot program (default: the one on PATH)")
    run.add_argument("--retry-failed", action="store_true", help="try again the files that failed in an earlier run")
    run.add_argument("--job-timeout", type=float, default=3600.0, help="seconds one file may take before its worker is restarted")
    run.add_argument("--part-rows", type=int, default=64, help="rows per Parquet part written (default 64): what a killed run can lose at most")
    run.add_argument("--json", action="store_true", help="print the summary as JSON")
    args = parser.parse_args(argv)

    tasks = [t.strip() for t in args.tasks.split(",") if t.strip()]
    unknown = [t for t in tasks if t not in TASKS]
    if unknown or not tasks:
        parser.error(f"unknown task {', '.join(unknown) or '(none given)'}; tasks: {', '.join(TASKS)}")
    if args.threads_per_worker < 1 or (args.workers is not None and args.workers < 1):
        parser.error("--workers and --threads-per-worker must be at least 1")
    try:
        options = json.loads(args.options) if args.options else {}
        if not isinstance(options, dict):
            raise ValueError
    except ValueError:
        parser.error("--options takes a JSON object")
    if args.language:
        options["language"] = args.language
    summary = transcribe(args.input, args.output, address=args.address, workers=args.workers,
                         threads_per_worker=args.threads_per_worker, tasks=tasks, options=options, model=args.model,
                         earshot=args.earshot, retry_failed=args.retry_failed, part_rows=max(1, args.part_rows), job_timeout=args.job_timeout,
                         progress=None if args.json else lambda text: print(text, file=sys.stderr))
    if args.json:
        print(json.dumps({**summary.__dict__, "audio_hours_per_hour": summary.audio_hours_per_hour}))
    return 1 if summary.failed else 0


if __name__ == "__main__":
    sys.exit(main())
