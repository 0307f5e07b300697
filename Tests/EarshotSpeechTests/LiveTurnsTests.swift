import EarshotCore
import EarshotSpeech
import EarshotTestSupport
import Foundation
import XCTest

/// Live audio cut into turns (OpenAI's server VAD, or commits by the caller): each sentence of a dialogue becomes
/// one turn, started, stopped, committed and read, with the same text Whisper reads from it as a recording.
final class LiveTurnsTests: XCTestCase {
    private func transcriber() throws -> Transcriber { try Transcriber.shared(Transcriber.Configuration(model: .tinyEn)) }

    /// - Parameter realTime: a chunk every 0.1 s, as a microphone sends them (partials are read beside the stream
    ///   and reported when they are in: audio fed faster than they are read gets none).
    private func feed(_ turns: LiveTurns, _ samples: [Float], chunk: Int = 1_600, realTime: Bool = false) async throws -> [LiveTurns.Event] {
        var events: [LiveTurns.Event] = []
        for start in stride(from: 0, to: samples.count, by: chunk) {
            if realTime { try await Task.sleep(nanoseconds: 100_000_000) }
            try await turns.append(Array(samples[start..<min(samples.count, start + chunk)])) { events.append($0) }
        }
        return events
    }

    private func completed(_ events: [LiveTurns.Event]) -> [(turn: Int, text: String)] {
        events.compactMap { if case let .completed(turn, text, _) = $0 { return (turn, text) } else { return nil } }
    }

    func testEachSentenceOfADialogueIsOneTurnInOrder() async throws {
        let sentences = Array(Sentences.all[10..<13])
        var samples = TestAudio.silence(seconds: 0.7)
        var ends: [Double] = []
        for sentence in sentences {
            samples += try TestAudio.speech(sentence).samples
            ends.append(Double(samples.count) / 16_000)
            samples += TestAudio.silence(seconds: 1.5)
        }
        let turns = try LiveTurns(transcriber: try transcriber())
        let events = try await feed(turns, samples)
        let done = completed(events)
        XCTAssertEqual(done.map(\.turn), [1, 2, 3], "\(events)")
        // over the dialogue (one turn's reading can turn on where exactly it starts: tiny.en once read this second
        // sentence as "But I'll just ask him…" from one start sample, and right from 70 ms either side of it)
        XCTAssertLessThanOrEqual(WordErrorRate.rate(reference: sentences.joined(separator: " "), hypothesis: done.map(\.text).joined(separator: " ")),
                                 0.2, "\(done)")
        for ((_, text), sentence) in zip(done, sentences) {
            XCTAssertLessThanOrEqual(WordErrorRate.rate(reference: sentence, hypothesis: text), 0.5, text)
        }
        // each turn: started, stopped after its speech (by about the silence asked for), committed, then read
        for (index, end) in ends.enumerated() {
            let turn = index + 1
            let order = events.enumerated().compactMap { position, event -> (Int, String)? in
                switch event {
                case let .speechStarted(t, _) where t == turn: return (position, "started")
                case let .speechStopped(t, _) where t == turn: return (position, "stopped")
                case let .committed(t) where t == turn: return (position, "committed")
                case let .completed(t, _, _) where t == turn: return (position, "completed")
                default: return nil
                }
            }
            XCTAssertEqual(order.map(\.1), ["started", "stopped", "committed", "completed"], "turn \(turn)")
            let stoppedAt = events.compactMap { if case let .speechStopped(t, at) = $0, t == turn { return at } else { return nil } }.first!
            XCTAssertGreaterThan(stoppedAt, end, "stopped after the speech")
            XCTAssertLessThan(stoppedAt, end + 1.2, "and within the silence")
        }
        XCTAssertLessThan(turns.samplesHeld, 16_000 * 3, "between turns only a little audio is kept")
    }

    /// A turn is read with the turn before (when it ended at most 30 s earlier) as Whisper's prompt, so names it wrote
    /// carry on. Alone, tiny.en writes espeak-ng's "Ask Anneliese about the Kubernetes cluster." as "Ask how you listen
    /// out in the cube and eat a cluster."; here the first turn is read by a transcriber told those names, the second
    /// by one told nothing, after the first turn's text, and the third the same after more than 30 s of quiet.
    func testATurnIsReadAfterTheTurnBeforeWithin30Seconds() async throws {
        let told = try Transcriber.shared(Transcriber.Configuration(model: .tinyEn, prompt: "Anneliese, Kubernetes"))
        let turns = try LiveTurns(transcriber: told, settings: LiveTurns.Settings(partialInterval: 0))
        let ask = try TestAudio.speech("Ask Anneliese about the Kubernetes cluster.").samples
        var events = try await feed(turns, TestAudio.silence(seconds: 0.5) + TestAudio.speech("Anneliese runs the Kubernetes cluster.").samples
                                    + TestAudio.silence(seconds: 1.5))
        turns.transcriber = try transcriber()
        events += try await feed(turns, ask + TestAudio.silence(seconds: 31) + ask + TestAudio.silence(seconds: 1.5))
        let texts = completed(events).map(\.text)
        XCTAssertEqual(texts.count, 3, "\(events)")
        guard texts.count == 3 else { return }
        XCTAssertTrue(texts[0].contains("Kubernetes"), "the first turn, told the names: \(texts[0])")
        XCTAssertTrue(texts[1].contains("Kubernetes"), "the second, after the first: \(texts[1])")
        XCTAssertFalse(texts[2].contains("Kubernetes"), "the third, 31 s later, on its own: \(texts[2])")
    }

    func testPartialsComeWhileALongTurnGoesOn() async throws {
        var samples = TestAudio.silence(seconds: 0.5)
        for sentence in Sentences.all[0..<2] { samples += try TestAudio.speech(sentence).samples }
        samples += TestAudio.silence(seconds: 1.0)
        let events = try await feed(try LiveTurns(transcriber: try transcriber()), samples, realTime: true)
        let partials = events.compactMap { if case let .partial(_, text) = $0 { return text } else { return nil } }
        XCTAssertGreaterThanOrEqual(partials.count, 1, "\(events)")
        let firstPartial = events.firstIndex { if case .partial = $0 { return true } else { return false } }!
        let stopped = events.firstIndex { if case .speechStopped = $0 { return true } else { return false } }!
        XCTAssertLessThan(firstPartial, stopped, "partials while the turn goes on")
        XCTAssertEqual(completed(events).count, 1, "one turn: the sentences follow without a pause")
    }

    func testWithoutDetectionTheCallerCommitsAndClears() async throws {
        let sentence = Sentences.all[3]
        let speech = try TestAudio.speech(sentence).samples
        var settings = LiveTurns.Settings()
        settings.detection = nil
        let turns = try LiveTurns(transcriber: try transcriber(), settings: settings)
        var events = try await feed(turns, speech + TestAudio.silence(seconds: 0.3))
        XCTAssertEqual(events, [], "nothing happens until a commit")
        let committed = try await turns.commit { events.append($0) }
        XCTAssertTrue(committed)
        guard case let .completed(_, text, duration) = events.last else { return XCTFail("\(events)") }
        // the whole buffer read as a recording: the same text as the transcriber gives the same audio
        let whole = try await transcriber().transcribe(AudioBuffer(samples: speech + TestAudio.silence(seconds: 0.3), sampleRate: 16_000),
                                                       source: "same")
        XCTAssertEqual(text, whole.text)
        XCTAssertEqual(duration, Double(speech.count) / 16_000 + 0.3, accuracy: 0.01)

        let empty = try await turns.commit { events.append($0) }
        XCTAssertFalse(empty, "an empty buffer is not a turn")
        _ = try await feed(turns, speech)
        turns.clear()
        let cleared = try await turns.commit { events.append($0) }
        XCTAssertFalse(cleared, "cleared")
        XCTAssertEqual(turns.uncommitted, 0)
    }

    func testABufferIsBoundedWithOrWithoutDetection() async throws {
        var settings = LiveTurns.Settings(detection: nil, partialInterval: 0, maxTurn: 2)
        let manual = try LiveTurns(transcriber: try transcriber(), settings: settings)
        _ = try await feed(manual, TestAudio.silence(seconds: 1.9))
        do {
            _ = try await feed(manual, TestAudio.silence(seconds: 0.5))
            XCTFail("more than maxTurn is refused")
        } catch let failure as LiveTurns.Failure {
            XCTAssertEqual(failure, .bufferFull(seconds: 2))
        }
        // with detection, speech longer than maxTurn is cut into turns of at most that
        settings.detection = LiveTurns.Detection()
        let detected = try LiveTurns(transcriber: try transcriber(), settings: settings)
        var speech: [Float] = []
        for sentence in Sentences.all[4..<6] { speech += try TestAudio.speech(sentence).samples }
        let events = try await feed(detected, speech)
        let durations = events.compactMap { if case let .completed(_, _, duration) = $0 { return duration } else { return nil } }
        XCTAssertGreaterThanOrEqual(durations.count, 2, "\(events)")
        for duration in durations { XCTAssertLessThanOrEqual(duration, 2.05) }
        XCTAssertLessThan(detected.samplesHeld, 16_000 * 3)
    }

    func testSettingsHonoured() async throws {
        var samples = TestAudio.silence(seconds: 0.5)
        samples += try TestAudio.speech(Sentences.all[7]).samples + TestAudio.silence(seconds: 1.0)
        // a threshold no speech reaches: no turn at all
        let deaf = try LiveTurns(transcriber: try transcriber(), settings: LiveTurns.Settings(detection: LiveTurns.Detection(threshold: 1.0)))
        let none = try await feed(deaf, samples)
        XCTAssertEqual(none, [])
        // prefix padding reaches back before the detected start; a short silence ends the turn sooner
        let early = try LiveTurns(transcriber: try transcriber(),
                                  settings: LiveTurns.Settings(detection: LiveTurns.Detection(prefixPadding: 0.4, silenceDuration: 0.2)))
        let late = try LiveTurns(transcriber: try transcriber(),
                                 settings: LiveTurns.Settings(detection: LiveTurns.Detection(prefixPadding: 0.0, silenceDuration: 0.8)))
        func times(_ events: [LiveTurns.Event]) -> (start: Double, stop: Double) {
            let start = events.compactMap { if case let .speechStarted(_, at) = $0 { return at } else { return nil } }.first ?? -1
            let stop = events.compactMap { if case let .speechStopped(_, at) = $0 { return at } else { return nil } }.first ?? -1
            return (start, stop)
        }
        let a = times(try await feed(early, samples)), b = times(try await feed(late, samples))
        XCTAssertEqual(b.start - a.start, 0.4, accuracy: 0.05, "prefix padding")
        XCTAssertEqual(b.stop - a.stop, 0.6, accuracy: 0.1, "silence duration")
    }
}
