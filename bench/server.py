#!/usr/bin/env python3
"""`earshot serve` under load (make bench). Runs the release binary over a private EARSHOT_HOME overlay.

1. Throughput: 20 concurrent clients (threads on loopback) each upload a 30 s clip to
   /v1/audio/transcriptions; wall time vs the CLI transcribing the same 20 files one after another (one
   `earshot transcribe` per file, as a script would), and vs one CLI process given all 20. Per-request p50/p99
   latency, errors, the server's peak RSS (VmHWM). Median of --runs.
2. Notes search p95 (GET /api/notes?q=…, words and both) while the 20 uploads run, on 5 seeded notes.
3. Live: whole utterances (read sentences from ../shared/data/speech, or espeak-ng) pushed to /api/live at
   real-time pace in 0.125 s pieces, as the page sends them, then silence; time from the utterance's last piece
   to the `final` event on the SSE stream. Median over 8 utterances.

4. Hostile sockets: GET /api/health latency (median, p95 of 50) alone, then with 1,000 idle connections open and a
   slow loris trickling a request head a byte at a time (`--hostile-only` runs just this).

5. Slow downloads: a voice enrolled from five espeak-ng clips, then 80 clients that ask for its 12 MB ONNX export and
   read 4 KB every half second; the server's RSS before, at its peak and once they are cut off, and the statuses
   they got (`--downloads-only` runs just this).

The 30 s clips are read speech from ../shared/data/speech joined with sox (espeak-ng when the data is absent).
"""
import argparse
import http.client
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HOME = os.environ.get("EARSHOT_HOME") or os.path.expanduser("~/.cache/earshot")
EARSHOT = os.path.join(ROOT, ".build/release/earshot")
DATA = os.environ.get("EARSHOT_DATA") or os.path.join(ROOT, "..", "shared", "data")


def private_home(work):
    home = os.path.join(work, "home")
    os.makedirs(os.path.join(home, "voice"))
    for name in ("runtime", "models"):
        os.symlink(os.path.join(HOME, name), os.path.join(home, name))
    os.symlink(os.path.join(HOME, "voice", "background"), os.path.join(home, "voice", "background"))
    return home


def clips(work, count, seconds):
    """count clips of about `seconds` of real read speech each (16 kHz mono WAV)."""
    speech = os.path.join(DATA, "speech")
    sources = sorted(os.path.join(speech, f) for f in os.listdir(speech) if f.endswith(".flac")) if os.path.isdir(speech) else []
    out = []
    for i in range(count):
        path = os.path.join(work, f"clip{i:02d}.wav")
        if sources:
            chosen, total, j = [], 0.0, i * 7
            while total < seconds:
                f = sources[j % len(sources)]
                total += float(subprocess.check_output(["soxi", "-D", f]).decode())
                chosen.append(f)
                j += 1
            subprocess.run(["sox", *chosen, "-r", "16000", "-c", "1", path, "trim", "0", str(seconds)], check=True)
        else:
            text = " ".join(["The committee will meet again next Thursday to discuss the budget for the new library."] * 8)
            subprocess.run(["espeak-ng", "-w", path + ".raw.wav", text], check=True)
            subprocess.run(["sox", path + ".raw.wav", "-r", "16000", path, "trim", "0", str(seconds)], check=True)
        out.append(path)
    return out


def utterances(work, count):
    """Whole spoken sentences (16 kHz mono WAV): live transcription finalises a line when the speech ends."""
    speech = os.path.join(DATA, "speech")
    sources = sorted(os.path.join(speech, f) for f in os.listdir(speech) if f.endswith(".flac"))[:count] if os.path.isdir(speech) else []
    out = []
    for i in range(count):
        path = os.path.join(work, f"utterance{i}.wav")
        if sources:
            subprocess.run(["sox", sources[i % len(sources)], "-r", "16000", "-c", "1", path], check=True)
        else:
            subprocess.run(["espeak-ng", "-w", path + ".raw.wav", "The meeting moved to Thursday afternoon."], check=True)
            subprocess.run(["sox", path + ".raw.wav", "-r", "16000", path], check=True)
        out.append(path)
    return out


def multipart(path, fields):
    boundary = uuid.uuid4().hex
    body = b""
    for name, value in fields.items():
        body += f"--{boundary}\r\nContent-Disposition: form-data; name=\"{name}\"\r\n\r\n{value}\r\n".encode()
    with open(path, "rb") as f:
        data = f.read()
    body += (f"--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"{os.path.basename(path)}\"\r\n"
             f"Content-Type: audio/wav\r\n\r\n").encode() + data + f"\r\n--{boundary}--\r\n".encode()
    return body, f"multipart/form-data; boundary={boundary}"


def request(port, method, path, body=None, content_type=None, timeout=900):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    headers = {"Content-Type": content_type} if content_type else {}
    connection.request(method, path, body=body, headers=headers)
    response = connection.getresponse()
    data = response.read()
    connection.close()
    return response.status, data


def start_server(home):
    process = subprocess.Popen([EARSHOT, "serve", "--port", "0", "--no-notes-worker"], stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL, env=dict(os.environ, EARSHOT_HOME=home), text=True)
    line = process.stdout.readline()
    port = int(re.search(r":(\d+)/", line).group(1))
    return process, port


def peak_rss_mb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return 0.0


def throughput(port, files, searching):
    latencies, errors = [], []
    search_times = []
    stop = threading.Event()

    def search():
        queries = ["dentist", "budget meeting", "garden", "train tickets"]
        i = 0
        while not stop.is_set():
            q = queries[i % len(queries)].replace(" ", "%20")
            mode = "words" if i % 2 == 0 else "both"
            t = time.perf_counter()
            status, _ = request(port, "GET", f"/api/notes?q={q}&mode={mode}")
            search_times.append(time.perf_counter() - t)
            if status != 200:
                errors.append(f"search {status}")
            i += 1
            time.sleep(0.1)

    def client(path):
        body, content_type = multipart(path, {"model": "whisper-1"})
        t = time.perf_counter()
        status, data = request(port, "POST", "/v1/audio/transcriptions", body, content_type)
        latencies.append(time.perf_counter() - t)
        if status != 200 or not json.loads(data).get("text"):
            errors.append(f"{status} {data[:100]!r}")

    searcher = threading.Thread(target=search) if searching else None
    if searcher:
        searcher.start()
    started = time.perf_counter()
    threads = [threading.Thread(target=client, args=(f,)) for f in files]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.perf_counter() - started
    stop.set()
    if searcher:
        searcher.join()
    return wall, latencies, errors, search_times


def cli_one_by_one(home, files):
    started = time.perf_counter()
    for f in files:
        subprocess.run([EARSHOT, "transcribe", f], check=True, capture_output=True, env=dict(os.environ, EARSHOT_HOME=home))
    return time.perf_counter() - started


def cli_all_at_once(home, files):
    started = time.perf_counter()
    subprocess.run([EARSHOT, "transcribe", *files], check=True, capture_output=True, env=dict(os.environ, EARSHOT_HOME=home))
    return time.perf_counter() - started


def live_delays(port, files):
    """Seconds from the last pushed piece to the final line, per utterance."""
    import array
    delays = []
    for path in files:
        raw = subprocess.check_output(["sox", path, "-t", "f32", "-r", "16000", "-c", "1", "-"])
        samples = array.array("f", raw)
        status, data = request(port, "POST", "/api/live", json.dumps({"kind": "transcribe"}).encode(), "application/json")
        session = json.loads(data)
        finals, last_sent = [], [0.0]

        def read_events():
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
            connection.request("GET", session["events"])
            response = connection.getresponse()
            event = None
            while True:
                line = response.readline()
                if not line:
                    break
                line = line.decode().strip()
                if line.startswith("event: "):
                    event = line[7:]
                elif line.startswith("data: ") and event == "final":
                    finals.append(time.perf_counter())
                elif event == "end":
                    break

        reader = threading.Thread(target=read_events)
        reader.start()
        piece = 2000  # 0.125 s, as the page sends them
        began = time.perf_counter()
        for i in range(0, len(samples), piece):
            chunk = samples[i:i + piece].tobytes()
            request(port, "POST", session["audio"], chunk, "application/octet-stream")
            last_sent[0] = time.perf_counter()
            # real time: the next piece when its audio would have been spoken
            time.sleep(max(0.0, began + (i + piece) / 16000 - time.perf_counter()))
        # silence after the speech, pushed in real time, as a microphone would
        silence = array.array("f", [0.0] * piece).tobytes()
        speech_end = last_sent[0]
        for _ in range(32):  # up to 4 s
            request(port, "POST", session["audio"], silence, "application/octet-stream")
            time.sleep(piece / 16000)
            if finals and finals[-1] > speech_end:
                break
        request(port, "DELETE", f"/api/live/{session['id']}")
        reader.join()
        after = [t for t in finals if t > speech_end]
        if after:
            delays.append(after[0] - speech_end)
    return delays


def health_latencies(port, count=50):
    times = []
    for _ in range(count):
        t = time.perf_counter()
        request(port, "GET", "/api/health", timeout=60)
        times.append(time.perf_counter() - t)
    return times


def hostile(port, idle_count=1000):
    """/api/health latency alone and beside idle sockets and a slow loris, in ms (median, p95)."""
    import socket
    alone = health_latencies(port)
    idle = [socket.create_connection(("127.0.0.1", port)) for _ in range(idle_count)]
    stop = threading.Event()

    def loris():
        with socket.create_connection(("127.0.0.1", port)) as sock:
            for byte in b"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: " + b"z" * 10_000:
                if stop.is_set():
                    return
                sock.send(bytes([byte]))
                time.sleep(0.05)

    thread = threading.Thread(target=loris)
    thread.start()
    try:
        crowded = health_latencies(port)
    finally:
        stop.set()
        thread.join()
        for sock in idle:
            sock.close()
    ms = lambda values: {"median_ms": round(statistics.median(values) * 1000, 1), "p95_ms": round(percentile(values, 95) * 1000, 1)}
    return {"health_alone": ms(alone), f"health_with_{idle_count}_idle_and_a_slow_loris": ms(crowded)}


def rss_mb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def slow_downloads(port, pid, work, readers=80):
    """RSS while `readers` clients read a voice's export 4 KB every half second (the answer is sent from disk)."""
    import socket
    fields = []
    for i in range(5):
        path = os.path.join(work, f"enrol{i}.wav")
        subprocess.run(["espeak-ng", "-v", "en-us+f3", "-w", path, f"This is clip number {i + 1} of my voice, spoken "
                        "slowly and clearly for the enrolment of a new voice profile today."], check=True)
        fields.append(path)
    boundary = uuid.uuid4().hex
    body = b""
    for path in fields:
        with open(path, "rb") as f:
            body += (f"--{boundary}\r\nContent-Disposition: form-data; name=\"clips\"; filename=\"{os.path.basename(path)}\"\r\n"
                     "Content-Type: audio/wav\r\n\r\n").encode() + f.read() + b"\r\n"
    body += f"--{boundary}--\r\n".encode()
    status, _ = request(port, "POST", "/api/voices/ann/enroll", body, f"multipart/form-data; boundary={boundary}")
    assert status in (200, 201), status
    before = rss_mb(pid)
    sockets = []
    for _ in range(readers):
        sock = socket.socket()
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        sock.connect(("127.0.0.1", port))
        sock.sendall(b"GET /api/voices/ann/export HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        sock.setblocking(False)
        sockets.append(sock)
    statuses, peak = {}, before
    for _ in range(20):
        for sock in sockets:
            try:
                data = sock.recv(4096)
            except BlockingIOError:
                continue
            if data.startswith(b"HTTP/1.1 "):
                statuses[data[9:12].decode()] = statuses.get(data[9:12].decode(), 0) + 1
        peak = max(peak, rss_mb(pid))
        time.sleep(0.5)
    for sock in sockets:
        sock.close()
    time.sleep(3)
    return {"readers": readers, "rss_before_mb": round(before), "rss_peak_mb": round(peak), "rss_after_mb": round(rss_mb(pid)),
            "statuses": statuses}


def percentile(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--clients", type=int, default=20)
    parser.add_argument("--live-only", action="store_true", help="only the live latency (quick)")
    parser.add_argument("--hostile-only", action="store_true", help="only the idle-sockets and slow-loris latency (quick)")
    parser.add_argument("--downloads-only", action="store_true", help="only the 80 slow readers of an export (quick)")
    args = parser.parse_args()
    work = tempfile.mkdtemp(prefix="earshot-bench-server-")
    try:
        home = private_home(work)
        if args.downloads_only:
            server, port = start_server(home)
            try:
                print(json.dumps(slow_downloads(port, server.pid, work)))
            finally:
                server.terminate()
                server.wait()
            return 0
        if args.hostile_only:
            server, port = start_server(home)
            try:
                print(json.dumps(hostile(port)))
            finally:
                server.terminate()
                server.wait()
            return 0
        if args.live_only:
            server, port = start_server(home)
            try:
                delays = live_delays(port, utterances(work, 8))
            finally:
                server.terminate()
                server.wait()
            print(json.dumps({"live_final_delay_median_s": round(statistics.median(delays), 2), "live_final_delays_s": [round(d, 2) for d in delays]}))
            return 0
        files = clips(work, args.clients, 30)
        print("==> seeding 5 notes for the search timings", flush=True)
        subprocess.run([EARSHOT, "notes", "seed", "--wait"], check=True, capture_output=True, env=dict(os.environ, EARSHOT_HOME=home))
        server, port = start_server(home)
        try:
            request(port, "POST", "/v1/audio/transcriptions", *multipart(files[0], {}))  # load the models once
            walls, all_latencies, all_errors, searches = [], [], [], []
            for run in range(args.runs):
                wall, latencies, errors, search_times = throughput(port, files, searching=True)
                print(f"  run {run + 1}: {args.clients} clients in {wall:.1f} s, errors {len(errors)}", flush=True)
                walls.append(wall); all_latencies += latencies; all_errors += errors; searches += search_times
            rss = peak_rss_mb(server.pid)
            idle = []
            for _ in range(20):
                t = time.perf_counter(); request(port, "GET", "/api/notes?q=dentist&mode=words"); idle.append(time.perf_counter() - t)
            delays = live_delays(port, utterances(work, 8))
            crowd = hostile(port)
        finally:
            server.terminate()
            server.wait()
        one_by_one = [cli_one_by_one(home, files) for _ in range(args.runs)]
        all_at_once = [cli_all_at_once(home, files) for _ in range(args.runs)]
        server_wall = statistics.median(walls)
        result = {
            "clients": args.clients, "clip_seconds": 30, "runs": args.runs,
            "server_wall_s": round(server_wall, 2),
            "cli_one_by_one_s": round(statistics.median(one_by_one), 2),
            "cli_all_at_once_s": round(statistics.median(all_at_once), 2),
            "ratio_vs_one_by_one": round(server_wall / statistics.median(one_by_one), 3),
            "ratio_vs_all_at_once": round(server_wall / statistics.median(all_at_once), 3),
            "latency_p50_s": round(percentile(all_latencies, 50), 2), "latency_p99_s": round(percentile(all_latencies, 99), 2),
            "errors": len(all_errors), "server_peak_rss_mb": round(rss),
            "search_p95_under_load_ms": round(percentile(searches, 95) * 1000, 1), "search_requests": len(searches),
            "search_p95_idle_ms": round(percentile(idle, 95) * 1000, 1),
            "live_final_delay_median_s": round(statistics.median(delays), 2) if delays else None,
            "live_final_delays_s": [round(d, 2) for d in delays],
            **crowd,
        }
        os.makedirs(os.path.join(ROOT, "bench", "results"), exist_ok=True)
        with open(os.path.join(ROOT, "bench", "results", "server.json"), "w") as f:
            json.dump(result, f, indent=1)
        print(json.dumps(result, indent=1))
        if all_errors:
            print("errors:", all_errors[:5], file=sys.stderr)
            return 1
        return 0
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
