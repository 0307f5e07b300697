import EarshotCore
import EarshotLanguage
@testable import EarshotNotes
import EarshotSpeech
import EarshotTestSupport
import Foundation
import XCTest

/// Forgetting someone with `redact` leaves no trace of what they said: a real two-voice recording goes through the
/// pipeline, one voice is forgotten, and their words are searched for by words, by meaning and in every export, and
/// their stretch of the recording is checked to be silent.
final class ForgetPersonTests: XCTestCase {
    var fixture: NotesFixture!
    override func setUpWithError() throws { fixture = try NotesFixture() }
    override func tearDown() { fixture.remove() }

    static let herons = "I walked along the river this morning and counted eleven herons standing in the shallow water near the old mill."
    static let budget = "The marketing budget for next quarter is cut by ten percent, and the trade fair booking is cancelled."

    func testForgettingWithRedactLeavesNoTraceOfWhatTheySaid() async throws {
        guard LanguageModelChoice.small.path() != nil else { throw XCTSkip("the small language model is not installed (make setup)") }
        // two voices the diarization network tells apart, a second of silence between them
        let loader = AudioFileLoader(sampleRate: 16_000)
        let first = try loader.load(path: try fixture.speech(Self.herons, name: "herons.wav", voice: "en-us+m5"))
        let second = try loader.load(path: try fixture.speech(Self.budget, name: "budget.wav", voice: "en-029+f3"))
        let joined = fixture.home.appendingPathComponent("meeting.wav")
        try WAVWriter.pcm16(first.samples + [Float](repeating: 0, count: 16_000) + second.samples, sampleRate: 16_000).write(to: joined)
        let store = try fixture.store()
        let id = try store.add(path: joined.path)
        var options = NotesPipeline.Options()
        options.languageModel = .small
        let pipeline = NotesPipeline(store: store, options: options, modelStore: fixture.modelStore)
        _ = try await pipeline.run()
        let note = try store.note(id)
        XCTAssertEqual(note.speakers.count, 2, "\(note.segments)")
        let said = try XCTUnwrap(note.segments.first { $0.text.lowercased().contains("river") }, "\(note.segments)")
        let person = try XCTUnwrap(try store.person(inNote: id, label: try XCTUnwrap(said.speaker)))
        let oldRecording = note.audioPath
        let search = NotesSearch(store: store, modelStore: fixture.modelStore)
        let walk = "walking along the river in the morning, shallow water near an old mill"
        XCTAssertEqual(try search.search("river", mode: .words).map(\.id), [id], "found before")
        XCTAssertTrue(try search.search(walk, mode: .meaning).contains { $0.id == id }, "found by meaning before")

        let forgotten = try store.forgetPerson(person, redact: true)
        XCTAssertEqual(forgotten.notes, [id])
        XCTAssertGreaterThan(forgotten.silencedSeconds, 3)
        _ = try await pipeline.run()  // the summary and embedding made again from what is left

        let after = try store.note(id)
        XCTAssertTrue(after.stages.allSatisfy { $0.state == .done }, "\(after.stages)")
        XCTAssertFalse(after.transcript.lowercased().contains("river"), after.transcript)
        XCTAssertTrue(after.transcript.lowercased().contains("marketing"), after.transcript)
        XCTAssertTrue(after.transcript.contains(NotesStore.removedText))
        XCTAssertEqual(try search.search("river", mode: .words).map(\.id), [])
        XCTAssertEqual(try search.search("mill", mode: .words).map(\.id), [])
        XCTAssertFalse(try search.search(walk, mode: .meaning).contains { $0.id == id }, "not found by meaning after")
        for format in NotesExporter.Format.allCases {
            let exported = try NotesExporter.render(after, format: format).lowercased()
            XCTAssertFalse(exported.contains("river") || exported.contains("mill"), "\(format): \(exported)")
        }
        XCTAssertThrowsError(try store.person(person))

        // the recording: a new file, silent where they spoke and not elsewhere; the old one is gone
        XCTAssertNotEqual(after.audioPath, oldRecording)
        XCTAssertFalse(FileManager.default.fileExists(atPath: oldRecording))
        let audio = try loader.load(path: after.audioPath)
        func loudness(_ from: Double, _ to: Double) -> Float {
            let range = Int(from * 16_000)..<min(audio.samples.count, Int(to * 16_000))
            return range.isEmpty ? 0 : range.map { abs(audio.samples[$0]) }.max() ?? 0
        }
        XCTAssertEqual(loudness(said.start, said.end), 0, "their speech is silenced")
        let kept = try XCTUnwrap(after.segments.first { $0.text.lowercased().contains("marketing") })
        XCTAssertGreaterThan(loudness(kept.start, kept.end), 0.05, "the other voice is kept")
    }
}
