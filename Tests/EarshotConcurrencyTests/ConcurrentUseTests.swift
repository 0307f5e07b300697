import EarshotCore
import EarshotNotes
import EarshotSound
import EarshotSpeech
import EarshotTestSupport
import EarshotVoice
import Foundation
import XCTest

/// Given one shared instance of each capability's entry type driven from 8 tasks at once, expect every
/// task to get exactly what it gets alone, nothing lost and nothing mixed up. `make tsan` runs these under
/// the thread sanitizer, which fails the run on any data race.
final class ConcurrentUseTests: XCTestCase {
    static let tasks = 8

    func testEightTasksShareOneTranscriberAndEachGetsItsOwnTranscript() async throws {
        let configuration = Transcriber.Configuration(model: .tinyEn, threads: 1)
        let audio = try (0..<Self.tasks).map { try TestAudio.speech(Sentences.all[$0]) }
        // every task asks for the shared transcriber itself: one model for all
        let first = try Transcriber.shared(configuration)
        var alone: [String] = []
        for clip in audio { alone.append(try await first.transcribe(clip, source: "").text) }
        let together = try await withThrowingTaskGroup(of: (Int, String, Bool).self) { group in
            for (i, clip) in audio.enumerated() {
                group.addTask {
                    let transcriber = try Transcriber.shared(configuration)
                    return (i, try await transcriber.transcribe(clip, source: "").text, transcriber === first)
                }
            }
            var results = [String](repeating: "", count: audio.count)
            for try await (i, text, same) in group {
                XCTAssertTrue(same, "Transcriber.shared gives every task the same instance")
                results[i] = text
            }
            return results
        }
        XCTAssertEqual(together, alone)
        // each task got its own sentence (a mix-up would be far off), and tiny.en reads espeak-ng well overall
        // (it hears "Fresh bread from the bakery" as "Fresh red from the make-a-re", so not every sentence is close)
        var errors = 0, words = 0
        for (text, sentence) in zip(together, Sentences.all) {
            XCTAssertLessThanOrEqual(WordErrorRate.rate(reference: sentence, hypothesis: text), 0.6, text)
            let counts = WordErrorRate.counts(reference: sentence, hypothesis: text)
            (errors, words) = (errors + counts.errors, words + counts.words)
        }
        XCTAssertLessThanOrEqual(Double(errors) / Double(words), 0.2)
    }

    /// Lanes (several recordings at once) and windows read at once share one loaded Whisper and call it from several
    /// threads without taking turns: each recording still reads as it does alone.
    func testLanesAndWindowsReadAtOnceOnOneLoadedWhisper() async throws {
        let alone = Transcriber.Configuration(model: .tinyEn, threads: 1)
        let audio = try (0..<Self.tasks).map { try TestAudio.speech(Sentences.all[$0]) }
        var expected: [String] = []
        for clip in audio { expected.append(try await Transcriber.shared(alone).transcribe(clip, source: "").text) }
        let lanes = try Transcriber.lanes(Transcriber.Configuration(model: .tinyEn, threads: 4), count: 4)
        var read = [String](repeating: "", count: audio.count)
        try await InOrderLanes.run(count: audio.count, lanes: lanes.count, work: { i, lane in
            (try? await lanes[lane].transcribe(audio[i], source: "").text) ?? "failed"
        }, emit: { i, text in read[i] = text })
        XCTAssertEqual(read, expected)
        // two windows of one recording at once, on the same loaded Whisper
        var long: [Float] = []
        while long.count < 45 * 16000 { long += audio[long.count % audio.count].samples + TestAudio.silence(seconds: 0.8) }
        let recording = AudioBuffer(samples: long, sampleRate: 16000)
        let oneAtATime = try await Transcriber.shared(alone).transcribe(recording, source: "long")
        let twoAtOnce = try await Transcriber(Transcriber.Configuration(model: .tinyEn, threads: 2), windowsAtOnce: 2)
            .transcribe(recording, source: "long")
        XCTAssertGreaterThan(oneAtATime.segments.last?.end ?? 0, 35, "more than one window")
        XCTAssertEqual(twoAtOnce.segments, oneAtATime.segments)
    }

    func testEightTasksClassifyWithOneClassifier() async throws {
        let classifier = try SoundClassifier.builtIn()
        let clips = (0..<Self.tasks).map { i in
            AudioBuffer(samples: (0..<16_000).map { Float(sin(2 * Double.pi * Double(300 + 150 * i) * Double($0) / 16_000)) * 0.4 },
                        sampleRate: 16_000)
        }
        let alone = try clips.map { try classifier.classify($0, top: 3).overall.top }
        let together = try await withThrowingTaskGroup(of: (Int, [LabelScore]).self) { group in
            for (i, clip) in clips.enumerated() { group.addTask { (i, try classifier.classify(clip, top: 3).overall.top) } }
            var results = [[LabelScore]](repeating: [], count: clips.count)
            for try await (i, top) in group { results[i] = top }
            return results
        }
        XCTAssertEqual(together, alone, "concurrent runs of one ONNX Runtime session give the same scores")
    }

    func testEightTasksEnrolAndVerifyAgainstOneVoiceID() async throws {
        let dir = TestAudio.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let voices = try VoiceID(profiles: VoiceProfileStore(directory: dir.appendingPathComponent("profiles")))
        let speakers = ["en-us+m5", "en-gb+f4", "en-us+f3", "en+m3"]
        func clip(_ voice: String, _ i: Int) throws -> String {
            let url = dir.appendingPathComponent("\(voice)-\(i).wav")
            if !FileManager.default.fileExists(atPath: url.path) {
                try TestAudio.speak(Sentences.all[i] + " " + Sentences.all[i + 5], to: url, voice: voice)
            }
            return url.path
        }
        let clips = try speakers.map { v in try (0..<4).map { try clip(v, $0) } }
        try await voices.prepare()
        // enrolments from several tasks at once: the actor runs them one after another, each retraining the others
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (name, files) in zip(speakers, clips) {
                group.addTask { try await voices.enroll(name.replacingOccurrences(of: "+", with: "_"), clips: Array(files.prefix(3))) }
            }
            try await group.waitForAll()
        }
        let enrolled = await voices.enrolled().profiles.map(\.name)
        XCTAssertEqual(Set(enrolled), Set(speakers.map { $0.replacingOccurrences(of: "+", with: "_") }))
        let tests = (0..<Self.tasks).map { clips[$0 % speakers.count][3] }
        var alone: [VoiceID.Identification] = []
        for test in tests { alone.append(try await voices.identify(file: test)) }
        let together = try await withThrowingTaskGroup(of: (Int, VoiceID.Identification).self) { group in
            for (i, test) in tests.enumerated() { group.addTask { (i, try await voices.identify(file: test)) } }
            var results = alone
            for try await (i, identification) in group { results[i] = identification }
            return results
        }
        XCTAssertEqual(together, alone)
        for (i, identification) in together.enumerated() {
            XCTAssertEqual(identification.ranking.first?.name, speakers[i % speakers.count].replacingOccurrences(of: "+", with: "_"))
        }
    }

    func testEightTasksAddAndSearchNotesInOneLibrary() async throws {
        let home = try TestHome.make()
        defer { try? FileManager.default.removeItem(at: home) }
        var options = NotesPipeline.Options()
        options.languageModel = .small
        let notes = try NotesLibrary(directory: home.appendingPathComponent("notes"), options: options, modelStore: ModelStore(home: home))
        let recordings = try (0..<Self.tasks).map { i -> String in
            let url = home.appendingPathComponent("memo\(i).wav")
            try TestAudio.speak(Sentences.all[i], to: url)
            return url.path
        }
        let ids = try await withThrowingTaskGroup(of: Int.self) { group in
            for path in recordings { group.addTask { try await notes.add(file: path, tags: ["concurrent"]).id } }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        XCTAssertEqual(Set(ids).count, Self.tasks, "every note saved once, with its own id")
        // processing from several tasks: each stage runs exactly once
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<Self.tasks { group.addTask { try await notes.process() } }
            try await group.waitForAll()
        }
        let stored = try await notes.list(tag: "concurrent")
        XCTAssertEqual(stored.count, Self.tasks)
        for note in stored {
            XCTAssertTrue(note.stages.allSatisfy { $0.state == .done && $0.completions == 1 }, "\(note.stages)")
        }
        let hits = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<Self.tasks { group.addTask { try await notes.search("birds garden", mode: .words).count } }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        XCTAssertEqual(hits, [Int](repeating: hits[0], count: Self.tasks))
        XCTAssertGreaterThan(hits[0], 0, "the note about birds in the garden is found by every task")
    }
}
