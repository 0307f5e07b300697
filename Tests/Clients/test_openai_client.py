"""The official openai Python client pointed at `earshot serve`, as its users would call it.

Run by scripts/run-client-tests.sh with EARSHOT_URL set to the server and AUDIO to a folder of espeak-ng clips.
"""
import base64
import os
import re
import subprocess
import unittest

import openai
from word_errors import word_error_rate, words

BASE = os.environ["EARSHOT_URL"]
AUDIO = os.environ["AUDIO"]
SENTENCE = "the train to the coast leaves every hour from platform four"


class OpenAIClientTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.client = openai.OpenAI(base_url=f"{BASE}/v1", api_key=os.environ.get("EARSHOT_TOKEN", "not-needed"), max_retries=0)

    def clip(self, name):
        return open(os.path.join(AUDIO, name), "rb")

    def test_models(self):
        ids = [m.id for m in self.client.models.list()]
        self.assertEqual(ids, ["whisper-1", "tiny.en", "base"])

    def test_transcription_json_and_text(self):
        with self.clip("train.wav") as f:
            result = self.client.audio.transcriptions.create(model="whisper-1", file=f)
        words = set(result.text.lower().replace(".", "").replace(",", "").split())
        # espeak-ng's voice through tiny.en: most of the ten words, not all
        self.assertGreaterEqual(len(words & set(SENTENCE.split())), 5, result.text)
        self.assertEqual(result.usage.type, "duration")
        self.assertGreater(result.usage.seconds, 2)
        with self.clip("train.wav") as f:
            text = self.client.audio.transcriptions.create(model="whisper-1", file=f, response_format="text")
        self.assertEqual(text.strip(), result.text)

    def test_streamed_transcription(self):
        """stream=True: the text arrives as transcript.text.delta events, then transcript.text.done with all of it."""
        with self.clip("train.wav") as f:
            whole = self.client.audio.transcriptions.create(model="whisper-1", file=f).text
        with self.clip("train.wav") as f:
            events = list(self.client.audio.transcriptions.create(model="whisper-1", file=f, stream=True))
        kinds = [e.type for e in events]
        self.assertGreaterEqual(kinds.count("transcript.text.delta"), 1, kinds)
        self.assertEqual(kinds[-1], "transcript.text.done", kinds)
        self.assertEqual("".join(e.delta for e in events if e.type == "transcript.text.delta"), events[-1].text)
        self.assertEqual(events[-1].text, whole, "the same text as without streaming")
        with self.assertRaises(openai.BadRequestError):
            with self.clip("train.wav") as f:
                self.client.audio.transcriptions.create(model="whisper-1", file=f, stream=True, response_format="srt")

    def test_verbose_json_with_segments(self):
        with self.clip("train.wav") as f:
            result = self.client.audio.transcriptions.create(
                model="tiny.en", file=f, response_format="verbose_json", timestamp_granularities=["segment"])
        self.assertGreater(result.duration, 2)
        self.assertEqual((result.usage.type, result.usage.seconds), ("duration", result.duration))
        self.assertTrue(result.segments)
        self.assertLess(result.segments[0].start, result.segments[-1].end)

    def test_verbose_json_with_words(self):
        with self.clip("train.wav") as f:
            result = self.client.audio.transcriptions.create(
                model="tiny.en", file=f, response_format="verbose_json", timestamp_granularities=["word", "segment"])
        self.assertTrue(result.segments)
        self.assertGreaterEqual(len(result.words), 7, result.words)
        said = [w.word.lower().strip(".,") for w in result.words]
        self.assertIn("train", said)
        for before, after in zip(result.words, result.words[1:]):
            self.assertLessEqual(before.start, before.end)
            self.assertLessEqual(before.end, after.start + 1e-6)
        self.assertLessEqual(result.words[-1].end, result.duration + 1e-6)
        # segments carry Whisper's own measures
        self.assertLess(result.segments[0].avg_logprob, 0)
        self.assertTrue(0 <= result.segments[0].no_speech_prob <= 1)

    def test_diarized_json_says_who_spoke_and_names_a_known_speaker(self):
        # espeak-ng's voices sound alike to the speaker network: the count is given (Earshot's num_speakers)
        with self.clip("standup.wav") as f:
            result = self.client.audio.transcriptions.create(
                model="gpt-4o-transcribe-diarize", file=f, response_format="diarized_json", extra_body={"num_speakers": "2"})
        speakers = [s.speaker for s in result.segments]
        self.assertEqual(speakers[0], "A", speakers)
        self.assertEqual(sorted(set(speakers)), ["A", "B"], speakers)
        self.assertTrue(all(s.type == "transcript.text.segment" for s in result.segments))
        self.assertIn("farmer", " ".join(s.text.lower() for s in result.segments if s.speaker == "A"))
        with open(os.path.join(AUDIO, "ruth.wav"), "rb") as f:
            reference = "data:audio/wav;base64," + base64.b64encode(f.read()).decode()
        with self.clip("standup.wav") as f:
            named = self.client.audio.transcriptions.create(
                model="gpt-4o-transcribe-diarize", file=f, response_format="diarized_json", known_speaker_names=["Ruth"],
                known_speaker_references=[reference], extra_body={"num_speakers": "2"})
        self.assertEqual([s.speaker for s in named.segments][0], "Ruth", named.segments)
        self.assertEqual(sorted(set(s.speaker for s in named.segments)), ["A", "Ruth"])
        with self.clip("standup.wav") as f, self.assertRaises(openai.BadRequestError) as caught:
            self.client.audio.transcriptions.create(model="whisper-1", file=f, response_format="diarized_json",
                                                    known_speaker_names=["Ruth"], known_speaker_references=["not a data url"])
        self.assertIn("data URL", str(caught.exception))

    def test_prompt_steers_the_spelling(self):
        # "platform four" is written as a digit or a word depending on context; a prompt written in digits
        # steers Whisper to digits (and the request with a prompt must succeed at all)
        with self.clip("train.wav") as f:
            plain = self.client.audio.transcriptions.create(model="tiny.en", file=f, temperature=0)
        with self.clip("train.wav") as f:
            prompted = self.client.audio.transcriptions.create(
                model="tiny.en", file=f, prompt="Trains leave from platforms 1, 2, 3 and 4 at 10:15.", temperature=0)
        self.assertTrue(prompted.text)
        self.assertIn("4", prompted.text, (plain.text, prompted.text))

    def test_subtitles(self):
        with self.clip("train.wav") as f:
            srt = self.client.audio.transcriptions.create(model="whisper-1", file=f, response_format="srt")
        self.assertTrue(srt.startswith("1\n00:00:0"), srt)
        with self.clip("train.wav") as f:
            vtt = self.client.audio.transcriptions.create(model="whisper-1", file=f, response_format="vtt")
        self.assertTrue(vtt.startswith("WEBVTT"), vtt)

    def test_translation(self):
        with self.clip("german.wav") as f:
            result = self.client.audio.translations.create(model="whisper-1", file=f)
        self.assertIn("coffee", result.text.lower())

    def test_errors_arrive_as_the_clients_exceptions(self):
        with self.clip("not-audio.txt") as f:
            with self.assertRaises(openai.BadRequestError) as caught:
                self.client.audio.transcriptions.create(model="whisper-1", file=f)
        self.assertIn("not-audio.txt", caught.exception.message)
        with self.clip("train.wav") as f:
            with self.assertRaises(openai.BadRequestError) as caught:
                self.client.audio.transcriptions.create(model="whisper-9", file=f)
        self.assertIn("unknown model", caught.exception.message)


class RealtimeClientTest(unittest.TestCase):
    """OpenAI's Realtime transcription (`/v1/realtime?intent=transcription`) through the client's own support for it
    (openai[realtime]), audio as OpenAI's clients send it: 24 kHz 16-bit PCM in base64, 100 ms per event."""

    COMPLETED = "conversation.item.input_audio_transcription.completed"

    @classmethod
    def setUpClass(cls):
        cls.client = openai.OpenAI(base_url=f"{BASE}/v1", api_key=os.environ.get("EARSHOT_TOKEN", "not-needed"), max_retries=0)

    def pcm24(self, name):
        return subprocess.check_output(["sox", os.path.join(AUDIO, name), "-D", "-t", "raw", "-r", "24000", "-b", "16",
                                        "-e", "signed", "-c", "1", "-"])

    def file_text(self, name):
        with open(os.path.join(AUDIO, name), "rb") as f:
            return self.client.audio.transcriptions.create(model="whisper-1", file=f).text

    def session(self, pcm, turn_detection, dialect="ga"):
        """Sends the audio, a commit and a clear; returns every event up to the clear's answer (which comes once the
        session has read everything before it)."""
        headers = {"OpenAI-Beta": "realtime=v1"} if dialect == "beta" else {}
        with self.client.realtime.connect(extra_query={"intent": "transcription"}, extra_headers=headers) as conn:
            events = [conn.recv()]
            if dialect == "beta":
                conn.send({"type": "transcription_session.update", "session": {
                    "input_audio_format": "pcm16", "input_audio_transcription": {"model": "whisper-1", "language": "en"},
                    "turn_detection": turn_detection}})
            else:
                conn.session.update(session={"type": "transcription", "audio": {"input": {
                    "format": {"type": "audio/pcm", "rate": 24000}, "transcription": {"model": "gpt-4o-transcribe", "language": "en"},
                    "turn_detection": turn_detection}}})
            events.append(conn.recv())
            for i in range(0, len(pcm), 4800):
                conn.input_audio_buffer.append(audio=base64.b64encode(pcm[i:i + 4800]).decode())
            conn.input_audio_buffer.commit()
            conn.input_audio_buffer.clear()
            while events[-1].type != "input_audio_buffer.cleared":
                events.append(conn.recv())
            return events

    def transcripts(self, events):
        return [e.transcript for e in events if e.type == self.COMPLETED and e.transcript]

    def test_server_vad_gives_deltas_then_the_sentence(self):
        events = self.session(self.pcm24("train.wav") + b"\0" * 96000, {"type": "server_vad", "silence_duration_ms": 500})
        kinds = [e.type for e in events]
        self.assertEqual(kinds[0], "session.created")
        self.assertEqual(events[1].session.audio.input.turn_detection.silence_duration_ms, 500)
        for kind in ["input_audio_buffer.speech_started", "input_audio_buffer.speech_stopped", "input_audio_buffer.committed",
                     "conversation.item.created", "conversation.item.input_audio_transcription.delta", self.COMPLETED]:
            self.assertIn(kind, kinds)
        item = next(e for e in events if e.type == "input_audio_buffer.speech_started").item_id
        completed = next(e for e in events if e.type == self.COMPLETED and e.item_id == item)
        self.assertEqual(completed.usage.type, "duration")
        self.assertLessEqual(word_error_rate(self.file_text("train.wav"), completed.transcript), 0.1, completed.transcript)
        self.assertGreaterEqual(len(set(words(completed.transcript)) & set(SENTENCE.split())), 5, completed.transcript)

    def test_a_recorded_sentence_reads_as_the_file_endpoint_reads_it(self):
        # a recorded read sentence (../shared/data when present), as one committed buffer and as server VAD's turns
        whole = self.file_text("recorded.wav")
        committed = " ".join(self.transcripts(self.session(self.pcm24("recorded.wav"), None)))
        turns = " ".join(self.transcripts(self.session(self.pcm24("recorded.wav") + b"\0" * 96000, {"type": "server_vad"})))
        self.assertLessEqual(word_error_rate(whole, committed), 0.1, (whole, committed))
        # server VAD cuts the turn itself (from just before the speech to 0.25 s into the quiet after it), and tiny.en
        # can read a phrase differently with less quiet around it (an earlier clip's "and far less beautiful" was "a
        # bit far less" from the file and "it felt as" from the turn, both wrong), so the bound here is looser; over
        # 40 files the two agree within a few per cent (BENCHMARKS.md)
        self.assertLessEqual(word_error_rate(whole, turns), 0.3, (whole, turns))

    def test_the_beta_dialect_and_its_errors(self):
        events = self.session(self.pcm24("train.wav"), None, dialect="beta")
        kinds = [e.type for e in events]
        self.assertEqual(kinds[:2], ["transcription_session.created", "transcription_session.updated"])
        self.assertNotIn("input_audio_buffer.speech_started", kinds, "no detection: the client commits")
        self.assertEqual(len(self.transcripts(events)), 1, kinds)
        with self.client.realtime.connect(extra_query={"intent": "transcription"}) as conn:
            conn.recv()
            conn.input_audio_buffer.commit()
            error = conn.recv()
            self.assertEqual(error.type, "error")
            self.assertEqual(error.error.code, "input_audio_buffer_commit_empty")
            conn.send({"type": "response.create"})
            self.assertEqual(conn.recv().error.code, "unknown_event")


if __name__ == "__main__":
    unittest.main(verbosity=2)
