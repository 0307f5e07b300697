"""earshot_ray on a real Ray cluster of two nodes on this machine (ray.cluster_utils.Cluster, one CPU each), over
real speech: ../shared/data/speech when present, else sentences spoken by espeak-ng. Every file once, the same
transcripts as `earshot transcribe`, workers and actors killed mid-run, a file that kills its worker twice,
a resumed run. Ray starts and stops inside the tests."""

import glob
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
import unittest

import pyarrow.parquet as pq
import ray
from ray.cluster_utils import Cluster

from earshot_ray import list_inputs, transcribe
from earshot_ray.tasks import LARGEST, TASKS_AHEAD_PER_WORKER, group_into_tasks, task_sizes

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
EARSHOT = os.environ.get("EARSHOT", os.path.join(ROOT, ".build", "release", "earshot"))
SHARED_SPEECH = os.path.join(ROOT, "..", "shared", "data", "speech")
# the sentences the Swift tests speak (Tests/Support/Sentences.swift), for when the shared data is absent
SENTENCES = re.findall(r'^\s*"([^"]+)",?$', open(os.path.join(ROOT, "Tests", "Support", "Sentences.swift")).read(), re.M)


def speech_files(folder, count):
    """`count` recordings in `folder` (links to the shared read speech, or espeak-ng sentences)."""
    os.makedirs(folder, exist_ok=True)
    if os.path.isdir(SHARED_SPEECH):
        names = sorted(n for n in os.listdir(SHARED_SPEECH) if n.endswith(".flac"))[::3][:count]
        for name in names:
            os.symlink(os.path.join(SHARED_SPEECH, name), os.path.join(folder, name))
        return [os.path.join(folder, n) for n in names]
    print(f"note: {SHARED_SPEECH} absent: using espeak-ng speech", file=sys.stderr)
    paths = []
    for i in range(count):
        path = os.path.join(folder, f"sentence{i:02d}.wav")
        subprocess.run(["espeak-ng", "-v", ["en-us", "en-gb", "en-us+f3"][i % 3], "-w", path,
                        SENTENCES[i % len(SENTENCES)]], check=True)
        paths.append(path)
    return paths


def earshot_processes():
    """pids of every `earshot batch` process running now."""
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as handle:
                words = handle.read().split(b"\0")
        except OSError:
            continue
        if len(words) > 1 and words[0].endswith(b"earshot") and words[1] == b"batch":
            found.append(int(pid))
    return found


def actor_processes():
    found = []
    for pid in os.listdir("/proc"):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as handle:
                if b"EarshotActor" in handle.read():
                    found.append(int(pid))
        except OSError:
            continue
    return found


def parent(pid):
    with open(f"/proc/{pid}/status") as handle:
        return int(next(line for line in handle if line.startswith("PPid:")).split()[1])


def rows(output):
    return pq.read_table(output).to_pylist()


class InputTests(unittest.TestCase):
    """What a run works through, without a cluster."""

    def test_folders_manifests_and_their_mistakes(self):
        with tempfile.TemporaryDirectory() as work:
            for name in ["a/x.flac", "a/b/y.WAV", "a/readme.txt", "a/.cache/z.wav", "c.wav"]:
                os.makedirs(os.path.dirname(os.path.join(work, name)), exist_ok=True)
                open(os.path.join(work, name), "w").close()
            listed = list_inputs(os.path.join(work, "a"))
            self.assertEqual([i["id"] for i in listed], ["b/y.WAV", "x.flac"], "recordings at all depths, hidden skipped")
            manifest = os.path.join(work, "list.txt")
            with open(manifest, "w") as handle:
                handle.write("# comment\nc.wav\n\n" + json.dumps({"id": "mine", "path": "/abs/q.mp3"}) + "\n")
            self.assertEqual(list_inputs(manifest), [{"id": "c.wav", "path": os.path.join(work, "c.wav")},
                                                     {"id": "mine", "path": "/abs/q.mp3"}])
            with open(manifest, "a") as handle:
                handle.write("c.wav\n")
            with self.assertRaises(SystemExit) as twice:
                list_inputs(manifest)
            self.assertIn("listed twice", str(twice.exception))
            with open(manifest, "w") as handle:
                handle.write('{"id": 1}\n')
            with self.assertRaises(SystemExit) as bad:
                list_inputs(manifest)
            self.assertIn("line 1 is not a job", str(bad.exception))
            with self.assertRaises(SystemExit):
                list_inputs(os.path.join(work, "nowhere"))


class TaskTests(unittest.TestCase):
    """How files are dealt out as Ray tasks, without a cluster."""

    def test_a_few_files_per_task_while_many_are_left_and_one_per_task_at_the_end(self):
        for files in (0, 1, 5, 20, 87, 173, 10_000):
            for workers in (1, 2, 3, 32):
                sizes = task_sizes(files, workers)
                self.assertEqual(sum(sizes), files, (files, workers))
                self.assertTrue(all(1 <= s <= LARGEST for s in sizes), sizes)
                self.assertEqual(sizes, sorted(sizes, reverse=True), "tasks only shrink")
                tail = TASKS_AHEAD_PER_WORKER * workers
                self.assertTrue(all(s == 1 for s in sizes[-tail:]), f"the last tasks hold one file each: {sizes}")
        self.assertLess(len(task_sizes(87, 1)), 40, "fewer round trips than files")
        self.assertEqual(task_sizes(5, 2), [1] * 5)

    def test_tasks_keep_every_file_once_in_order(self):
        items = [{"id": f"f{i}", "path": f"/a/f{i}.wav"} for i in range(23)]
        tasks = group_into_tasks(items, workers=2)
        self.assertEqual([i for t in tasks for i in t["id"]], [i["id"] for i in items])
        self.assertEqual([p for t in tasks for p in t["path"]], [i["path"] for i in items])


class ClusterTests(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if not os.access(EARSHOT, os.X_OK):
            raise unittest.SkipTest(f"{EARSHOT} is not built: run `make setup` first")
        cls.work = tempfile.mkdtemp(prefix="earshot-ray-")
        os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")  # as `ray start --disable-usage-stats` (docs/scale.md)
        cls.cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 1})
        cls.cluster.add_node(num_cpus=1)
        cls.cluster.wait_for_nodes()
        ray.init(address=cls.cluster.address, logging_level="WARNING", log_to_driver=False)

    @classmethod
    def tearDownClass(cls):
        ray.shutdown()
        cls.cluster.shutdown()
        subprocess.run(["rm", "-rf", cls.work])

    def run_earshot(self, source, output, **kwargs):
        return transcribe(source, output, workers=2, threads_per_worker=1, earshot=EARSHOT, progress=None, **kwargs)

    def cli_texts(self, paths):
        out = subprocess.run([EARSHOT, "transcribe", "--json", "--threads", "1", "--no-progress", *paths],
                             check=True, capture_output=True, text=True).stdout
        documents = json.loads(out)
        return {d["source"]: d["text"] for d in (documents if isinstance(documents, list) else [documents])}

    def test_every_file_once_on_both_nodes_with_the_transcripts_of_the_cli(self):
        folder = os.path.join(self.work, "twelve")
        paths = speech_files(folder, 12)
        output = os.path.join(self.work, "twelve.parquet")
        summary = self.run_earshot(folder, output)
        self.assertEqual((summary.files, summary.done, summary.failed), (12, 12, 0))
        got = rows(output)
        self.assertEqual(sorted(r["path"] for r in got), sorted(paths), "every file exactly once")
        self.assertTrue(all(r["ok"] for r in got), [r["error"] for r in got])
        self.assertEqual(len({r["node"] for r in got}), 2, "both nodes worked")
        expected = self.cli_texts(paths)
        for r in got:
            self.assertEqual(r["text"], expected[r["path"]], r["path"])
            self.assertGreater(r["duration"], 0.5)
            self.assertTrue(json.loads(r["segments"]))

    def test_killed_workers_and_actors_lose_nothing_and_duplicate_nothing(self):
        folder = os.path.join(self.work, "kill")
        paths = speech_files(folder, 20)
        output = os.path.join(self.work, "kill.parquet")
        killed = []

        def killer():
            deadline = time.monotonic() + 120
            while time.monotonic() < deadline and len(earshot_processes()) < 2:
                time.sleep(0.05)
            time.sleep(1.0)
            owner = None
            for pid in earshot_processes()[:1]:
                owner = parent(pid)
                os.kill(pid, signal.SIGKILL)
                killed.append(("earshot batch", pid))
            time.sleep(1.5)
            # the other actor: the one whose worker died keeps its count of the file's deaths
            for pid in [a for a in actor_processes() if a != owner][:1]:
                os.kill(pid, signal.SIGKILL)
                killed.append(("actor", pid))

        thread = threading.Thread(target=killer)
        thread.start()
        summary = self.run_earshot(folder, output)
        thread.join()
        self.assertEqual([k[0] for k in killed], ["earshot batch", "actor"], "the run outlasted both kills")
        got = rows(output)
        self.assertEqual(sorted(r["path"] for r in got), sorted(paths), "0 lost, 0 duplicated")
        self.assertTrue(all(r["ok"] for r in got), [r["error"] for r in got])
        self.assertEqual(summary.done, 20)
        self.assertTrue(any(r["attempts"] == 2 for r in got), "the killed worker's file was sent again")

    def test_a_file_that_kills_its_worker_twice_is_an_error_not_a_loop(self):
        folder = os.path.join(self.work, "poison")
        paths = speech_files(folder, 4)
        poison = os.path.join(folder, "poison.wav")
        # a minute of speech, so the worker holds it open long enough to be caught at it
        subprocess.run(["sox", *(paths * 4), "-r", "16000", "-c", "1", poison], check=True)
        stop = threading.Event()
        kills = set()

        def assassin():
            while not stop.is_set():
                for pid in earshot_processes():
                    try:
                        if any(os.readlink(f"/proc/{pid}/fd/{fd}") == poison for fd in os.listdir(f"/proc/{pid}/fd")):
                            os.kill(pid, signal.SIGKILL)
                            kills.add(pid)  # a set: a killed process shows its files until it is gone, and may be seen again
                    except OSError:
                        pass
                time.sleep(0.01)

        thread = threading.Thread(target=assassin)
        thread.start()
        try:
            summary = self.run_earshot(folder, os.path.join(self.work, "poison.parquet"))
        finally:
            stop.set()
            thread.join()
        got = {r["path"]: r for r in rows(os.path.join(self.work, "poison.parquet"))}
        self.assertEqual(len(got), 5)
        self.assertEqual((summary.done, summary.failed), (4, 1))
        self.assertFalse(got[poison]["ok"])
        self.assertEqual(got[poison]["attempts"], 2)
        self.assertIn("killed by SIGKILL while working on this file, 2 times; given up", got[poison]["error"])
        self.assertEqual(len(kills), 2, "two workers killed, then left alone")
        self.assertTrue(all(got[p]["ok"] for p in paths))

    def test_a_rerun_resumes_skipping_what_the_output_holds(self):
        folder = os.path.join(self.work, "resume")
        paths = speech_files(folder, 8)
        manifest = os.path.join(self.work, "first-three.txt")
        with open(manifest, "w") as handle:
            handle.write("# a first, partial run\n" + "\n".join(os.path.relpath(p, self.work) for p in paths[:3]) + "\n")
        output = os.path.join(self.work, "resume.parquet")
        # a manifest's ids are its paths as written: here the same as the folder's relative ids would be
        with open(manifest, "w") as handle:
            handle.write("\n".join(json.dumps({"id": os.path.basename(p), "path": p}) for p in paths[:3]) + "\n")
        first = self.run_earshot(manifest, output)
        self.assertEqual(first.done, 3)
        second = self.run_earshot(folder, output)
        self.assertEqual((second.files, second.skipped, second.done), (8, 3, 5))
        got = rows(output)
        self.assertEqual(sorted(r["id"] for r in got), sorted(os.path.basename(p) for p in paths))
        third = self.run_earshot(folder, output)
        self.assertEqual((third.skipped, third.done), (8, 0), "nothing left to do")
        self.assertEqual(len(rows(output)), 8)

    def test_a_driver_killed_mid_run_is_resumed_by_running_it_again(self):
        folder = os.path.join(self.work, "driver")
        paths = speech_files(folder, 16)
        output = os.path.join(self.work, "driver.parquet")
        command = [sys.executable, "-m", "earshot_ray", "transcribe", folder, "--output", output, "--address",
                   self.cluster.address, "--workers", "2", "--threads-per-worker", "1", "--earshot", EARSHOT,
                   "--part-rows", "2", "--json"]
        env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        driver = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and len(glob.glob(os.path.join(output, "part-*.parquet"))) < 2:
            time.sleep(0.05)
        driver.kill()
        driver.wait()
        kept = len(rows(output))
        self.assertTrue(2 <= kept < 16, f"killed part-way: {kept} rows kept")
        again = subprocess.run(command, env=env, capture_output=True, text=True, timeout=300)
        self.assertEqual(again.returncode, 0, again.stderr[-2000:])
        summary = json.loads(again.stdout.strip().splitlines()[-1])
        self.assertEqual((summary["files"], summary["skipped"], summary["done"]), (16, kept, 16 - kept))
        got = rows(output)
        self.assertEqual(sorted(r["path"] for r in got), sorted(paths), "0 lost, 0 duplicated")


if __name__ == "__main__":
    unittest.main(verbosity=2)
