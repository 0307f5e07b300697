#!/usr/bin/env python3
"""OpenAI's Realtime transcription over `earshot serve`'s WebSocket (make bench), through the official `openai`
client (openai[realtime]) as its users would call it. Runs the release binary over a private EARSHOT_HOME overlay.

1. Latency: read sentences (../shared/data/speech, or espeak-ng) sent in 100 ms pieces at real-time pace, then
   silence; seconds from the utterance's last piece to `conversation.item.input_audio_transcription.completed`
   (server VAD with OpenAI's defaults: threshold 0.5, prefix 300 ms, silence 500 ms). Median and 95th percentile.
   Side by side, in the same run and server: the same utterances through Earshot's own live API (/api/live, POSTs
   + SSE, the pages' path) measured the same way (`bench/server.py`'s live_delays).
2. The same with --sessions (default 20) sessions at once, each its own utterance, all in real time.
3. Agreement: every utterance sent at full speed, as one committed buffer and with server VAD; the realtime
   transcripts against `/v1/audio/transcriptions` of the same file (word error rate between them, exact matches)
   and against the reference transcripts.
4. A conversation (--conversation): the 173 utterances as one session, 1.5 s apart (bench/live.py's stream), sent
   at full speed with server VAD; each completed turn goes to the utterance its middle falls in, and `earshot score`
   scores them, as bench/live.py scores live final lines.
"""
import argparse
import base64
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import server as bench_server  # noqa: E402  (the server benchmark's helpers: private home, utterances, /api/live)
import live as bench_live  # noqa: E402  (the joined stream of the read utterances, and its scoring)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "Tests", "Clients"))
from word_errors import word_error_rate  # noqa: E402  (scored as the client tests score)

from openai import OpenAI  # noqa: E402

ROOT = bench_server.ROOT
PIECE = 4800  # bytes: 100 ms of 24 kHz 16-bit mono
COMPLETED = "conversation.item.input_audio_transcription.completed"


def pcm24(path):
    # -D: no dither, so every run sends the same samples
    return subprocess.check_output(["sox", path, "-D", "-t", "raw", "-r", "24000", "-b", "16", "-e", "signed", "-c", "1", "-"])


def connect(client):
    return client.realtime.connect(extra_query={"intent": "transcription"})


def paced_delay(client, path, results, index):
    """One session: the utterance in real time, then silence until its transcript; seconds after the last piece."""
    pcm = pcm24(path)
    with connect(client) as conn:
        conn.recv()  # session.created
        completed = []

        def read():
            while True:
                try:
                    event = conn.recv()
                except Exception:
                    return
                if event.type == COMPLETED and event.transcript:
                    completed.append(time.perf_counter())
                    return

        reader = threading.Thread(target=read)
        reader.start()
        began = time.perf_counter()
        pieces = range(0, len(pcm), PIECE)
        for n, i in enumerate(pieces):
            conn.input_audio_buffer.append(audio=base64.b64encode(pcm[i:i + PIECE]).decode())
            last = time.perf_counter()
            time.sleep(max(0.0, began + (n + 1) * 0.1 - time.perf_counter()))
        silence = base64.b64encode(b"\0" * PIECE).decode()
        for n in range(40):  # up to 4 s of silence, in real time
            if completed:
                break
            conn.input_audio_buffer.append(audio=silence)
            time.sleep(max(0.0, last + (n + 1) * 0.1 - time.perf_counter()))
        reader.join(30)
        results[index] = completed[0] - last if completed else None


def latencies(client, files, sessions):
    """Delays of `sessions` sessions at once, over `files` (one each, round robin); as many rounds as files need."""
    delays = []
    for start in range(0, len(files), sessions):
        chunk = files[start:start + sessions]
        results = [None] * len(chunk)
        threads = [threading.Thread(target=paced_delay, args=(client, path, results, i)) for i, path in enumerate(chunk)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        delays += [d for d in results if d is not None]
    return delays


def realtime_text(client, path, detection):
    """The transcript of the file sent at full speed: one committed buffer, or the turns server VAD finds."""
    pcm = pcm24(path)
    with connect(client) as conn:
        conn.recv()
        conn.session.update(session={"type": "transcription", "audio": {"input": {
            "turn_detection": {"type": "server_vad"} if detection else None}}})
        conn.recv()
        data = pcm + (b"\0" * 48000 * 2 if detection else b"")
        for i in range(0, len(data), PIECE):
            conn.input_audio_buffer.append(audio=base64.b64encode(data[i:i + PIECE]).decode())
        # a commit closes the last turn (or, with nothing left, is an error), and the clear after it is answered
        # once the session has read everything before it
        conn.input_audio_buffer.commit()
        conn.input_audio_buffer.clear()
        texts = []
        while True:
            event = conn.recv()
            if event.type == COMPLETED and event.transcript:
                texts.append(event.transcript)
            if event.type == "input_audio_buffer.cleared":
                return " ".join(texts)


def conversation(client, work, model):
    """Errors and words of the joined utterances read as the turns of one session (section 4 above)."""
    speech = bench_live.speech_dir()
    home = os.environ.get("EARSHOT_HOME") or os.path.expanduser("~/.cache/earshot")
    raw, spans = bench_live.stream(speech, home)
    pcm = subprocess.check_output(["sox", "-t", "raw", "-r", "16000", "-b", "16", "-e", "signed", "-c", "1", raw, "-D",
                                   "-t", "raw", "-r", "24000", "-b", "16", "-e", "signed", "-c", "1", "-"])
    turns, texts = {}, {}
    with connect(client) as conn:
        conn.recv()
        conn.session.update(session={"type": "transcription", "audio": {"input": {
            "turn_detection": {"type": "server_vad"}, "transcription": {"model": model}}}})
        conn.recv()

        def read():  # beside the sending: the server answers turns while audio is still coming
            while True:
                event = conn.recv()
                if event.type == "input_audio_buffer.speech_started":
                    turns[event.item_id] = [event.audio_start_ms / 1000, None]
                elif event.type == "input_audio_buffer.speech_stopped":
                    turns[event.item_id][1] = event.audio_end_ms / 1000
                elif event.type == COMPLETED and event.transcript:
                    texts[event.item_id] = event.transcript
                elif event.type == "input_audio_buffer.cleared":
                    return

        reader = threading.Thread(target=read)
        reader.start()
        for i in range(0, len(pcm), PIECE):
            conn.input_audio_buffer.append(audio=base64.b64encode(pcm[i:i + PIECE]).decode())
        conn.input_audio_buffer.clear()  # answered once everything before it is read
        reader.join()
    path = os.path.join(work, "conversation.tsv")
    timed = []
    for item, text in texts.items():
        start, end = turns[item]
        timed.append((start, start if end is None else end, text))
    bench_live.write_by_utterance(path, spans, timed)
    errors, words = bench_live.score(bench_server.EARSHOT, speech, path)
    return {"conversation_turns": len(texts), "conversation_errors": errors, "conversation_words": words,
            "conversation_wer": round(errors / words, 4)}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--utterances", type=int, default=20, help="read sentences for the latency (default 20)")
    parser.add_argument("--sessions", type=int, default=20, help="sessions at once in the concurrency run")
    parser.add_argument("--agreement", type=int, default=40, help="utterances for the agreement run (0: skip)")
    parser.add_argument("--conversation", action="store_true", help="also the 173 utterances as one session's turns")
    parser.add_argument("--conversation-model", default="whisper-1", help="the model the conversation is read with "
                        "(default whisper-1: the server's own)")
    parser.add_argument("--earshot", default=bench_server.EARSHOT, help="the earshot binary (default: the release build)")
    args = parser.parse_args()
    bench_server.EARSHOT = args.earshot
    work = tempfile.mkdtemp(prefix="earshot-bench-realtime-")
    try:
        home = bench_server.private_home(work)
        files = bench_server.utterances(work, max(1, args.utterances, args.sessions, args.agreement))
        server, port = bench_server.start_server(home)
        try:
            client = OpenAI(base_url=f"http://127.0.0.1:{port}/v1", api_key="none", max_retries=0)
            realtime_text(client, files[0], detection=False)  # load the models once
            alone = latencies(client, files[:args.utterances], 1) if args.utterances else []
            live = bench_server.live_delays(port, files[:args.utterances]) if args.utterances else []
            crowd = latencies(client, files[:args.sessions], args.sessions) if args.sessions else []
            agreement = []
            references = reference_texts()
            for path in files[:args.agreement]:
                with open(path, "rb") as f:
                    whole = client.audio.transcriptions.create(model="whisper-1", file=f).text
                committed = realtime_text(client, path, detection=False)
                turns = realtime_text(client, path, detection=True)
                agreement.append((path, whole, committed, turns))
            spoken = {}
            if args.conversation and not bench_live.speech_dir():
                print("conversation skipped: ../shared/data/speech is absent (set EARSHOT_DATA)", flush=True)
            elif args.conversation:
                spoken = conversation(client, work, args.conversation_model)
            rss = bench_server.peak_rss_mb(server.pid)
        finally:
            server.terminate()
            server.wait()
        p = bench_server.percentile
        result = {} if not (alone and crowd) else {
            "utterances": len(alone),
            "realtime_delay_median_s": round(statistics.median(alone), 3), "realtime_delay_p95_s": round(p(alone, 95), 3),
            "live_api_delay_median_s": round(statistics.median(live), 3), "live_api_delay_p95_s": round(p(live, 95), 3),
            "ratio_realtime_vs_live_api": round(statistics.median(alone) / statistics.median(live), 3),
            "concurrent_sessions": args.sessions,
            "concurrent_delay_median_s": round(statistics.median(crowd), 3), "concurrent_delay_p95_s": round(p(crowd, 95), 3),
            "concurrent_completed": len(crowd),
            "server_peak_rss_mb": round(rss),
        }
        result.update(spoken)
        if agreement:
            def mean(values):
                return round(sum(values) / len(values), 4)
            result.update({
                "agreement_files": len(agreement),
                "commit_exact_vs_file_endpoint": sum(c == w for _, w, c, _ in agreement),
                "commit_wer_vs_file_endpoint": mean([word_error_rate(w, c) for _, w, c, _ in agreement]),
                "vad_exact_vs_file_endpoint": sum(t == w for _, w, _, t in agreement),
                "vad_wer_vs_file_endpoint": mean([word_error_rate(w, t) for _, w, _, t in agreement]),
            })
            scored = [(references[os.path.basename(src)], w, c, t) for (path, w, c, t), src in zip(agreement, source_names(len(agreement)))
                      if os.path.basename(src) in references]
            if scored:
                result.update({
                    "file_endpoint_wer_vs_reference": mean([word_error_rate(r, w) for r, w, _, _ in scored]),
                    "commit_wer_vs_reference": mean([word_error_rate(r, c) for r, _, c, _ in scored]),
                    "vad_wer_vs_reference": mean([word_error_rate(r, t) for r, _, _, t in scored]),
                })
        os.makedirs(os.path.join(ROOT, "bench", "results"), exist_ok=True)
        with open(os.path.join(ROOT, "bench", "results", "realtime.json"), "w") as f:
            json.dump(result, f, indent=1)
        print(json.dumps(result, indent=1))
        return 0
    finally:
        shutil.rmtree(work, ignore_errors=True)


def source_names(count):
    speech = os.path.join(bench_server.DATA, "speech")
    if not os.path.isdir(speech):
        return []
    return sorted(f for f in os.listdir(speech) if f.endswith(".flac"))[:count]


def reference_texts():
    path = os.path.join(bench_server.DATA, "speech", "transcripts.tsv")
    if not os.path.exists(path):
        return {}
    with open(path) as f:
        rows = [line.rstrip("\n").split("\t") for line in f][1:]
    return {row[0]: row[3] for row in rows if len(row) >= 4}


if __name__ == "__main__":
    sys.exit(main())
