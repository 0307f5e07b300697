"""How the files are dealt out as Ray tasks: a few at a time while there are many left, one at a time at the end.

Every Ray task costs a round trip through Ray Data (the batch to the actor, its rows back as a block, the driver
reading them, the stats actor told), and that bookkeeping takes CPU from a worker that uses every core: one
two-thread worker on 2 cores ran 9.7% slower than `earshot transcribe` with one file per task, 3.9% with four
(87 files, bench/archive.py). But Ray Data hands each actor up to two tasks ahead of the one it is working on, so
four files per task to the last left one worker with up to eight files queued while the other had none (two
one-CPU nodes: scaling efficiency 0.88 with one file per task, 0.84 with four). So the tasks shrink as the list
runs out, as OpenMP's guided schedule does: while every worker can still be handed four tasks the size of this
one, a task takes up to `LARGEST` files; the last files go one per task."""

LARGEST = 4
# tasks Ray Data keeps queued at an actor beside the one it runs (ActorPoolStrategy's default: twice the
# actor's concurrency of 1), plus the one it runs and one more for the slack of the driver's loop
TASKS_AHEAD_PER_WORKER = 4


def task_sizes(files, workers, largest=LARGEST):
    """The number of files in each task, in order, for `files` files over `workers` workers."""
    sizes, left = [], files
    while left > 0:
        size = max(1, min(largest, left // (TASKS_AHEAD_PER_WORKER * max(1, workers))))
        sizes.append(size)
        left -= size
    return sizes


def group_into_tasks(items, workers, largest=LARGEST):
    """`items` (dicts with "id" and "path") as task rows: {"id": [ids...], "path": [paths...]}, sized by
    task_sizes."""
    rows, start = [], 0
    for size in task_sizes(len(items), workers, largest):
        chunk = items[start:start + size]
        rows.append({"id": [item["id"] for item in chunk], "path": [item["path"] for item in chunk]})
        start += size
    return rows
