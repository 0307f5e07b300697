import EarshotCore
@testable import EarshotSpeech
import EarshotTestSupport
import Foundation
import XCTest

/// Given speech arriving live, expect partial text while it goes on and a final line soon after it ends.
final class LiveTranscriberTests: XCTestCase {
    /// Three sentences with pauses, as 16 kHz samples, and the sentences.
    func dialogue() throws -> (samples: [Float], sentences: [String]) {
        let sentences = Array(Sentences.all[10..<13])
        var samples = TestAudio.silence(seconds: 0.5)
        for s in sentences { samples += try TestAudio.speech(s).samples + TestAudio.silence(seconds: 1.5) }
        return (samples, sentences)
    }

    /// A final line reads one window; where its rest was read again, its measures are the less sure reading's, so a
    /// client that drops lines read as noise (low `avg_logprob`, high `no_speech_prob`) sees the doubt. They travel in
    /// the event's JSON and back.
    func testAFinalLineCarriesTheMeasuresOfItsLeastSureReading() throws {
        var first = TranscriptSegment(start: 0, end: 2, text: "Book the room.")
        (first.averageLogProbability, first.noSpeechProbability, first.compressionRatio, first.temperature) = (-0.2, 0.01, 0.9, 0)
        var rest = TranscriptSegment(start: 2, end: 3, text: "Thank you.")
        (rest.averageLogProbability, rest.noSpeechProbability, rest.compressionRatio, rest.temperature) = (-1.1, 0.4, 0.6, 0.2)
        let line = LiveTranscription.line(start: 0.5, end: 3, text: "Book the room. Thank you.", reading: [first, rest])
        XCTAssertEqual(line.averageLogProbability, -1.1)
        XCTAssertEqual(line.noSpeechProbability, 0.4)
        XCTAssertEqual(line.compressionRatio, 0.6)
        XCTAssertEqual(line.temperature, 0.2)
        XCTAssertEqual(LiveTranscription.line(start: 0, end: 2, text: "x", reading: [first, first]).averageLogProbability, -0.2)

        let event = LiveEvent.final(segment: line, delay: 0.8)
        let json = try JSONSerialization.jsonObject(with: JSONEncoder().encode(event)) as! [String: Any]
        XCTAssertEqual(json["avg_logprob"] as? Double, -1.1)
        XCTAssertEqual(json["no_speech_prob"] as? Double, 0.4)
        XCTAssertEqual(try JSONDecoder().decode(LiveEvent.self, from: JSONEncoder().encode(event)), event)
    }

    /// A final line is read with the line before as Whisper's prompt, after the caller's own prompt; the first line,
    /// or one after a long silence or a line read at a high fallback temperature, with the caller's prompt alone.
    func testAFinalLineIsPromptedByTheLineBeforeAfterTheCallersPrompt() {
        var finals = SpeechRecognizer.Decoding()
        XCTAssertNil(PreviousLine.decoding(finals, after: nil).prompt)
        XCTAssertEqual(PreviousLine.decoding(finals, after: "Printing, then, for our purpose.").prompt, "Printing, then, for our purpose.")
        finals.prompt = "Anneliese, Kubernetes"
        XCTAssertEqual(PreviousLine.decoding(finals, after: nil).prompt, "Anneliese, Kubernetes")
        XCTAssertEqual(PreviousLine.decoding(finals, after: "We moved the cluster.").prompt, "Anneliese, Kubernetes We moved the cluster.")
        XCTAssertEqual(PreviousLine.decoding(finals, after: "x").beamSize, finals.beamSize)
        // a long line gives only its end, so the caller's prompt keeps its place in Whisper's 223 tokens
        let long = (1...150).map { "word\($0)" }.joined(separator: " ") + "."
        let prompt = PreviousLine.decoding(finals, after: long).prompt!
        XCTAssertTrue(prompt.hasPrefix("Anneliese, Kubernetes word"), prompt)
        XCTAssertTrue(prompt.hasSuffix(" word149 word150."), prompt)
        XCTAssertLessThanOrEqual(prompt.count, "Anneliese, Kubernetes ".count + PreviousLine.longestPrompt)
        XCTAssertFalse(prompt.dropFirst("Anneliese, Kubernetes ".count).contains("  "))

        // a line prompts the next one only when it said something surely, and only within 30 s
        func segment(_ text: String, temperature: Double = 0) -> TranscriptSegment {
            var segment = TranscriptSegment(start: 0, end: 1, text: text)
            segment.temperature = temperature
            return segment
        }
        let line = PreviousLine(reading: [segment("We moved"), segment("the cluster.", temperature: 0.4)], end: 16_000)
        XCTAssertEqual(line?.text, "We moved the cluster.")
        XCTAssertEqual(line?.prompt(forLineAt: 16_000 * 31, sampleRate: 16_000), "We moved the cluster.")
        XCTAssertNil(line?.prompt(forLineAt: 16_000 * 31 + 1, sampleRate: 16_000))
        XCTAssertNil(PreviousLine(reading: [segment("We moved"), segment("the cluster.", temperature: 0.6)], end: 0), "read at a fallback")
        XCTAssertNil(PreviousLine(reading: [], end: 0), "nothing said")
    }

    func testRawStreamOnAPipeGivesPartialsThenFinals() async throws {
        let (samples, sentences) = try dialogue()
        let input = TestAudio.pipe(delivering: TestAudio.rawS16(samples))
        let live = try Transcriber.shared(Transcriber.Configuration(model: .tinyEn))
        var events: [LiveEvent] = []
        for try await event in live.live(RawPCMSource(handle: input)) { events.append(event) }

        let finals = events.compactMap { if case let .final(segment, _) = $0 { return segment } else { return nil } }
        XCTAssertEqual(finals.count, sentences.count, "one final line per sentence")
        for (segment, sentence) in zip(finals, sentences) {
            XCTAssertLessThanOrEqual(WordErrorRate.rate(reference: sentence, hypothesis: segment.text), 0.3, segment.text)
        }
        // before the first final there were partials that grew
        let firstFinal = events.firstIndex { if case .final = $0 { return true } else { return false } }!
        let partials = events[..<firstFinal].compactMap { if case let .partial(text, _, _) = $0 { return text } else { return nil } }
        XCTAssertGreaterThanOrEqual(partials.count, 2)
        XCTAssertLessThan(partials.first!.count, partials.last!.count)
    }

    /// A word said alone is one short final line. Read the quick way partials are, espeak-ng's "Quote." (its default
    /// voice and rate) came back as "quote quote quote", partial and final, the final after 12 s of fallback
    /// temperatures that each looped too.
    func testALoneWordIsOneFinalLineNotALoop() async throws {
        let dir = TestAudio.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let wav = dir.appendingPathComponent("quote.wav")
        try TestAudio.speak("Quote.", to: wav, voice: "en", wordsPerMinute: 175)
        let word = try AudioFileLoader().load(path: wav.path).samples  // 16 kHz mono
        let samples = TestAudio.silence(seconds: 0.5) + word + TestAudio.silence(seconds: 1.5)
        let input = TestAudio.pipe(delivering: TestAudio.rawS16(samples))
        let live = try Transcriber.shared(Transcriber.Configuration(model: .tinyEn))
        var texts: [String] = [], finals = 0
        for try await event in live.live(RawPCMSource(handle: input)) {
            switch event {
            case let .partial(text, _, _): texts.append(text)
            case let .final(segment, _): texts.append(segment.text); finals += 1
            }
        }
        XCTAssertEqual(finals, 1, "\(texts)")
        for text in texts {
            let words = WordErrorRate.normalize(text)
            XCTAssertEqual(Set(words).count, words.count, "a word repeated: \(text)")
        }
    }

    /// Replayed at real speed, each sentence gets its final line once its speech has ended, with the delay
    /// measured from the arrival of its last audio (how short it is, is measured by the benchmarks: no
    /// timed assertion here, a busy machine would fail it).
    func testFinalLinesComeAfterTheEndOfSpeechWithTheirDelay() async throws {
        let (samples, _) = try dialogue()
        let dir = TestAudio.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("dialogue.wav")
        try TestAudio.wav16(samples, rate: 16000).write(to: file)
        let live = try Transcriber.shared(Transcriber.Configuration(model: .tinyEn))
        var delays: [Double] = []
        for try await event in live.live(try FileReplaySource(path: file.path, realtime: true)) {
            if case let .final(_, delay) = event { delays.append(delay) }
        }
        XCTAssertEqual(delays.count, 3)
        for delay in delays { XCTAssertTrue(delay.isFinite && delay >= 0, "\(delay)") }
        print("live final-line delays: \(delays.map { String(format: "%.2f", $0) }) s")
    }
}
