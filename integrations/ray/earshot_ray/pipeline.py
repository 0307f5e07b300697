"""Ray Data over the files: an actor pool whose actors each own an `earshot batch` process, results streamed
back to the driver and appended to the output dataset as they come (so a killed run keeps what it finished)."""

import dataclasses
import os
import shutil
import time

import ray

from .inputs import list_inputs
from .output import OutputDataset
from .tasks import LARGEST, group_into_tasks
from .worker import EarshotActor


@dataclasses.dataclass
class Summary:
    files: int = 0
    skipped: int = 0
    done: int = 0
    failed: int = 0
    audio_seconds: float = 0.0
    wall_seconds: float = 0.0

    @property
    def audio_hours_per_hour(self):
        return self.audio_seconds / self.wall_seconds if self.wall_seconds > 0 else 0.0

    def text(self):
        return (f"{self.files} files: {self.done} done now, {self.skipped} already in the output, {self.failed} failed; "
                f"{self.audio_seconds / 3600:.3f} h of audio in {self.wall_seconds:.1f} s "
                f"({self.audio_hours_per_hour:.1f} audio hours per hour)")


def find_earshot(earshot=None):
    path = earshot or shutil.which("earshot")
    if not path or not os.access(path, os.X_OK):
        raise SystemExit("earshot_ray: the earshot program was not found: put it on PATH or pass --earshot PATH "
                         "(it is .build/release/earshot after `make setup` in the Earshot source folder)")
    return os.path.abspath(path)


def transcribe(source, output, address=None, workers=None, threads_per_worker=1, tasks=("transcribe",), options=None,
               model=None, earshot=None, largest_task=LARGEST, part_rows=64, part_seconds=30.0, retry_failed=False,
               job_timeout=3600.0, progress=print):
    """Runs every file of `source` (folder or manifest) not already in `output` through Earshot on the Ray cluster
    at `address` (None: a local one, or the one this process is connected to). A Ray task takes up to
    `largest_task` files (see tasks.py). Returns a Summary."""
    started = time.monotonic()
    earshot = find_earshot(earshot)
    out = OutputDataset(output)
    items = list_inputs(source)
    if retry_failed:
        out.drop(out.failed_ids())
    done = out.done_ids()
    todo = [item for item in items if item["id"] not in done]
    summary = Summary(files=len(items), skipped=len(items) - len(todo))
    # Ray Data's own usage record is left out whatever the cluster's setting: it is one more actor on the cluster
    # (a Python process started for it, taking CPU from the workers) to report to no one from an offline job
    os.environ.setdefault("RAY_DATA_USAGE_DISABLED", "1")
    if not ray.is_initialized():
        # Earshot runs without a network: a cluster started here sends Ray's usage statistics nowhere (Ray's default
        # is to report them), unless the caller's environment chose; a cluster joined at `address` keeps its own
        # setting (`ray start --disable-usage-stats`)
        os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
        ray.init(address=address, logging_level="WARNING", log_to_driver=False)
    if todo:
        cpus = int(ray.cluster_resources().get("CPU", 1))
        workers = workers or max(1, cpus // threads_per_worker)
        # one block per task, a few files each and single files at the end, so the pool balances to the last file
        task_rows = group_into_tasks(todo, workers, largest_task)
        dataset = ray.data.from_items(task_rows, override_num_blocks=len(task_rows))
        results = dataset.map_batches(
            EarshotActor,
            fn_constructor_kwargs={"earshot": earshot, "threads": threads_per_worker, "tasks": list(tasks),
                                   "options": options or {}, "model": model, "job_timeout": job_timeout},
            batch_size=1, batch_format="numpy", num_cpus=threads_per_worker,
            # Ray Data restarts an actor that dies and retries its batch (max_restarts and max_task_retries are -1)
            compute=ray.data.ActorPoolStrategy(size=workers))
        written, pending, last = set(), [], time.monotonic()
        for batch in results.iter_rows():
            row = dict(batch)
            if row["id"] in written or row["id"] in done:
                continue  # a retried batch that had already come back
            written.add(row["id"])
            pending.append(_plain(row))
            summary.done += row["ok"]
            summary.failed += not row["ok"]
            summary.audio_seconds += row["duration"] or 0.0
            if len(pending) >= part_rows or time.monotonic() - last >= part_seconds:
                out.append(pending)
                pending, last = [], time.monotonic()
        out.append(pending)
    summary.wall_seconds = time.monotonic() - started
    if progress:
        progress(summary.text())
    return summary


def _plain(row):
    """numpy scalars from Ray as plain Python values for pyarrow."""
    plain = {}
    for key, value in row.items():
        plain[key] = value.item() if hasattr(value, "item") else value
    return plain
