import EarshotCore
import EarshotSpeech
import EarshotTestSupport
import Foundation
import XCTest

/// Given real speech (espeak-ng), expect the words back with times; given silence, expect nothing.
final class FileTranscriberTests: XCTestCase {
    func transcriber() throws -> Transcriber { try Transcriber.shared(Transcriber.Configuration(model: .tinyEn)) }

    func testSynthesisedSentencesAreTranscribedWithinFifteenPercentWER() async throws {
        var errors = 0, words = 0
        for sentence in Sentences.all.prefix(8) {
            let audio = try TestAudio.speech(sentence)
            let transcript = try await transcriber().transcribe(audio, source: "espeak")
            let c = WordErrorRate.counts(reference: sentence, hypothesis: transcript.text)
            errors += c.errors
            words += c.words
        }
        let wer = Double(errors) / Double(words)
        print("espeak-ng sentences, tiny.en: WER \(String(format: "%.1f", wer * 100))% over \(words) words")
        XCTAssertLessThanOrEqual(wer, 0.15)
    }

    /// Over three minutes of sentences separated by pauses: each sentence comes back as a segment whose
    /// times are within half a second of where the sentence really is.
    func testLongRecordingKeepsEverySentenceInOrderWithAccurateTimes() async throws {
        var samples = TestAudio.silence(seconds: 1)
        var truth: [(start: Double, end: Double, text: String)] = []
        while samples.count < 185 * 16000 {
            for sentence in Sentences.all {
                let speech = try TestAudio.speech(sentence).samples
                // espeak pads its output with a little silence: time the sentence by its audible part
                let loud = speech.indices.filter { abs(speech[$0]) > 0.01 }
                truth.append((Double(samples.count + loud.first!) / 16000, Double(samples.count + loud.last!) / 16000, sentence))
                samples += speech + TestAudio.silence(seconds: 1.2)
                if samples.count >= 185 * 16000 { break }
            }
        }
        let audio = AudioBuffer(samples: samples, sampleRate: 16000)
        XCTAssertGreaterThanOrEqual(audio.duration, 180)
        let transcript = try await transcriber().transcribe(audio, source: "long")
        XCTAssertEqual(transcript.segments.count, truth.count, "one segment per sentence")
        for (a, b) in zip(transcript.segments, transcript.segments.dropFirst()) {
            XCTAssertLessThanOrEqual(a.end, b.start, "timestamps are monotonic")
        }
        var errors = 0, words = 0
        for (segment, expected) in zip(transcript.segments, truth) {
            XCTAssertEqual(segment.start, expected.start, accuracy: 0.5, "start of '\(expected.text)'")
            XCTAssertEqual(segment.end, expected.end, accuracy: 0.5, "end of '\(expected.text)'")
            let c = WordErrorRate.counts(reference: expected.text, hypothesis: segment.text)
            XCTAssertLessThanOrEqual(c.rate, 0.5, "'\(segment.text)' should say '\(expected.text)'")
            errors += c.errors
            words += c.words
        }
        XCTAssertLessThanOrEqual(Double(errors) / Double(words), 0.15)
    }

    /// A recording of several windows read two windows at once, on two copies of Whisper: the same transcript,
    /// segment for segment and word for word, as one window at a time, and its segments streamed in their order.
    func testWindowsReadAtOnceGiveTheSameTranscriptInOrder() async throws {
        var samples = TestAudio.silence(seconds: 0.5)
        while samples.count < 75 * 16000 {
            for sentence in Sentences.all where samples.count < 75 * 16000 {
                samples += try TestAudio.speech(sentence).samples + TestAudio.silence(seconds: 0.8)
            }
        }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("earshot-windows-\(UUID().uuidString).wav")
        defer { try? FileManager.default.removeItem(at: file) }
        try WAVWriter.pcm16(samples, sampleRate: 16000).write(to: file)
        let configuration = Transcriber.Configuration(model: .tinyEn, threads: 2, words: true)
        let oneAtATime = try await Transcriber(configuration).transcribe(file: file.path, source: "long")
        // what the notes and the server use: for this file, a shared transcriber reading a window per thread at once;
        // for a recording of one window (or a file that cannot be opened), the plain shared one
        XCTAssertEqual(Transcriber.windowsAtOnce(forFile: file.path, threads: 2), 2)
        let long = try Transcriber.shared(configuration, windowsAtOnce: 2)
        XCTAssertFalse(try long === Transcriber.shared(configuration))
        XCTAssertTrue(try long === Transcriber.shared(configuration, windowsAtOnce: 2), "kept for the next long file")
        let short = file.deletingLastPathComponent().appendingPathComponent("earshot-window-\(UUID().uuidString).wav")
        defer { try? FileManager.default.removeItem(at: short) }
        try WAVWriter.pcm16(Array(samples.prefix(20 * 16000)), sampleRate: 16000).write(to: short)
        XCTAssertEqual(Transcriber.windowsAtOnce(forFile: short.path, threads: 2), 1)
        XCTAssertTrue(try Transcriber.shared(configuration, windowsAtOnce: 1) === Transcriber.shared(configuration))
        XCTAssertEqual(Transcriber.windowsAtOnce(forSeconds: 30, threads: 2), 1)
        XCTAssertEqual(Transcriber.windowsAtOnce(forSeconds: 30.5, threads: 2), 2)
        XCTAssertEqual(Transcriber.windowsAtOnce(forFile: "/nonexistent.wav", threads: 2), 1)
        XCTAssertEqual(Transcriber.windowsAtOnce(forFile: "-", threads: 2), 2, "standard input is not opened twice")
        let streamed = Locked<[TranscriptSegment]>([])
        let read = try await long.transcribe(file: file.path, source: "long", segments: { segments in
            streamed.withLock { $0 += segments }
        })
        XCTAssertGreaterThanOrEqual(Set(oneAtATime.segments.map { Int($0.start / 30) }).count, 3, "several windows")
        XCTAssertEqual(read, oneAtATime)
        XCTAssertEqual(streamed.withLock { $0 }, oneAtATime.segments)
    }

    func testSilenceAndNoiseGiveAnEmptyTranscript() async throws {
        var noise = TestAudio.silence(seconds: 10)
        var state: UInt32 = 12345
        for i in noise.indices {  // quiet white noise
            state = state &* 1_664_525 &+ 1_013_904_223
            noise[i] = (Float(state >> 8) / Float(1 << 24) - 0.5) * 0.002
        }
        let transcript = try await transcriber().transcribe(AudioBuffer(samples: noise, sampleRate: 16000), source: "quiet")
        XCTAssertEqual(transcript.segments, [TranscriptSegment]())
        XCTAssertEqual(transcript.text, "")
    }
}
