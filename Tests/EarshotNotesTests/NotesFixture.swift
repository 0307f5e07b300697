import EarshotCore
@testable import EarshotNotes
import EarshotTestSupport
import Foundation
import XCTest

/// A private EARSHOT_HOME for notes tests: its own notes store, the real runtimes and models linked in.
struct NotesFixture {
    let home: URL
    var notesDirectory: URL { home.appendingPathComponent("notes") }
    var environment: [String: String] { ["EARSHOT_HOME": home.path] }

    init() throws { home = try TestHome.make() }

    func store() throws -> NotesStore { try NotesStore(directory: notesDirectory) }
    var modelStore: ModelStore { ModelStore(home: home) }

    func remove() { try? FileManager.default.removeItem(at: home) }

    /// A spoken recording in the fixture's folder.
    func speech(_ text: String, name: String, voice: String = "en-us") throws -> String {
        let url = home.appendingPathComponent(name)
        try TestAudio.speak(text, to: url, voice: voice)
        return url.path
    }

    /// A note whose transcript is set directly and whose first two stages are marked done, so tests of
    /// search run the real index and the real embedding stage without transcribing and summarising.
    @discardableResult
    func note(_ store: NotesStore, title: String, transcript: String, tags: [String] = []) throws -> Int {
        let wav = home.appendingPathComponent("tone-\(UUID().uuidString).wav")
        try TestAudio.wav16(TestAudio.tone(frequency: 440, seconds: 0.5, rate: 16_000), rate: 16_000).write(to: wav)
        let id = try store.add(path: wav.path, tags: tags)
        try store.db.query("UPDATE notes SET title = ?, title_by = 'user', transcript = ? WHERE id = ?",
                           [.text(title), .text(transcript), .integer(Int64(id))])
        try store.db.query("UPDATE stages SET state = 'done', completions = 1 WHERE note_id = ? AND stage != 'embed'", [.integer(Int64(id))])
        return id
    }
}
