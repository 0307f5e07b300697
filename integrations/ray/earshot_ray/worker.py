"""One `earshot batch` process and the Ray Data actor that owns it.

The process loads its models once and answers one JSON line per job line. If it dies (killed, out of memory,
a crash), the jobs it held are sent to a fresh process; a file that was being worked on when the process died
twice is given up as an error instead of being retried for ever."""

import ctypes
import json
import os
import selectors
import signal
import subprocess
import time

# the columns of every result row, in this order: `segments`, `words`, `speakers`, `turns`, `sounds` as JSON text
COLUMNS = ["id", "path", "ok", "duration", "text", "language", "model", "segments", "words", "speakers", "turns",
           "sounds", "error", "seconds", "attempts", "node"]
JSON_COLUMNS = ["segments", "speakers", "turns", "sounds"]
DEATHS_ALLOWED = 2


def _die_with_parent():
    # PR_SET_PDEATHSIG: the worker goes when the actor that started it goes, even on SIGKILL
    ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)


class WorkerDied(Exception):
    pass


class EarshotProcess:
    """`earshot batch --threads T` as a child: send(job) writes a line, results() reads the answered ones."""

    def __init__(self, earshot, threads, model=None, stderr=None):
        command = [earshot, "batch", "--threads", str(threads)]
        if model:
            command += ["--model", model]
        self.process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=stderr,
                                        preexec_fn=_die_with_parent)
        self.selector = selectors.DefaultSelector()
        self.selector.register(self.process.stdout, selectors.EVENT_READ)
        self.pending = b""

    def send(self, job):
        try:
            self.process.stdin.write((json.dumps(job) + "\n").encode())
            self.process.stdin.flush()
        except (BrokenPipeError, OSError):
            raise WorkerDied(self.reason())

    def read(self, timeout):
        """The next result line; WorkerDied when the process ends or stays silent past `timeout` seconds."""
        deadline = time.monotonic() + timeout
        while b"\n" not in self.pending:
            left = deadline - time.monotonic()
            if left <= 0 or not self.selector.select(left):
                self.kill()
                raise WorkerDied(f"no answer in {timeout:.0f} s (killed)")
            chunk = os.read(self.process.stdout.fileno(), 1 << 16)
            if not chunk:
                raise WorkerDied(self.reason())
            self.pending += chunk
        line, self.pending = self.pending.split(b"\n", 1)
        return json.loads(line)

    def reason(self):
        try:
            code = self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.kill()
            code = self.process.wait()
        if code < 0:
            try:
                name = signal.Signals(-code).name
            except ValueError:
                name = f"signal {-code}"
            return f"earshot batch was killed by {name}"
        return f"earshot batch exited with status {code}"

    def kill(self):
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()

    def close(self):
        """Ends the worker: standard input closed, so it finishes the job it is on and exits."""
        try:
            self.process.stdin.close()
            self.process.wait(timeout=30)
        except Exception:
            self.kill()
        self.selector.close()
        self.process.stdout.close()


class EarshotActor:
    """Ray Data's callable class: map_batches(EarshotActor, compute=ActorPoolStrategy(...)) gives each actor its
    own `earshot batch` process for its whole life."""

    def __init__(self, earshot, threads, tasks, options=None, model=None, job_timeout=3600.0):
        self.earshot, self.threads, self.model = earshot, threads, model
        self.tasks, self.options, self.job_timeout = list(tasks), dict(options or {}), job_timeout
        self.deaths = {}
        self.process = None
        import ray  # only inside an actor: the row names the node that did the work
        self.node = ray.get_runtime_context().get_node_id()
        self._start()

    def _start(self):
        self.process = EarshotProcess(self.earshot, self.threads, self.model)

    def __call__(self, batch):
        """A batch of task rows (tasks.py: each holds a few files' ids and paths) gives a row per file."""
        rows = [dict(self._one(ident, path), node=self.node)
                for ids, paths in zip(batch["id"], batch["path"]) for ident, path in zip(ids, paths)]
        return {column: [r[column] for r in rows] for column in COLUMNS}

    def _one(self, ident, path):
        # one job in flight at a time, so a death is always this file's
        while True:
            try:
                self.process.send({"id": ident, "path": path, "tasks": self.tasks, "options": self.options})
                return row(self.process.read(self.job_timeout), attempts=self.deaths.get(ident, 0) + 1)
            except WorkerDied as died:
                self.deaths[ident] = self.deaths.get(ident, 0) + 1
                self.process.kill()
                self.process.close()
                self._start()
                if self.deaths[ident] >= DEATHS_ALLOWED:
                    return row({"id": ident, "path": path, "ok": False,
                                "error": f"{path}: {died} while working on this file, {self.deaths[ident]} times; given up"},
                               attempts=self.deaths[ident])

    def __del__(self):
        if self.process is not None:
            self.process.close()


def row(result, attempts):
    """A result line as a table row: nested fields as JSON text, every column present."""
    out = {column: result.get(column) for column in COLUMNS if column != "node"}
    for column in JSON_COLUMNS:
        out[column] = None if out[column] is None else json.dumps(out[column], ensure_ascii=False)
    words = [w for s in (result.get("segments") or []) for w in (s.get("words") or [])]
    out["words"] = json.dumps(words, ensure_ascii=False) if words else None
    out["ok"] = bool(result.get("ok"))
    out["attempts"] = attempts
    return out
