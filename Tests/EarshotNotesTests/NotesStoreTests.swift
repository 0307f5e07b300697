import EarshotCore
@testable import EarshotNotes
import EarshotSpeech
import EarshotTestSupport
import Foundation
import XCTest

/// The store: notes saved at once with their stages queued, refused input leaves nothing behind,
/// accent- and case-insensitive search, clear errors, edits, deletes and exports.
final class NotesStoreTests: XCTestCase {
    var fixture: NotesFixture!
    override func setUpWithError() throws { fixture = try NotesFixture() }
    override func tearDown() { fixture.remove() }

    func testAddSavesAtOnceWithEveryStageQueued() throws {
        let store = try fixture.store()
        let path = try fixture.speech("Remember to call the plumber.", name: "memo.wav")
        let id = try store.add(path: path, tags: ["home", "todo"])  // saved, not processed: every stage waits
        let note = try store.note(id)
        XCTAssertEqual(note.sourceName, "memo.wav")
        XCTAssertEqual(note.tags, ["home", "todo"])
        XCTAssertEqual(note.stages.map(\.stage), NoteStage.allCases)
        XCTAssertTrue(note.stages.allSatisfy { $0.state == .pending })
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: note.audioPath)), try Data(contentsOf: URL(fileURLWithPath: path)))
        XCTAssertGreaterThan(note.duration, 1)
        XCTAssertEqual(try store.list(tag: "TODO").map(\.id), [id], "tags ignore case")
        XCTAssertEqual(try store.list(since: Date().addingTimeInterval(60)).count, 0)
    }

    /// A missing, empty or damaged database beside stored recordings is refused (never silently replaced by
    /// an empty store), and repair rebuilds the notes from the recordings, keeping the damaged file aside.
    func testMissingEmptyOrDamagedDatabaseIsRefusedAndRepairedFromTheRecordings() throws {
        let path = try fixture.speech("Remember to call the plumber.", name: "memo.wav")
        let database = fixture.notesDirectory.appendingPathComponent("notes.db")
        func reset(_ damage: () throws -> Void) throws {
            try? FileManager.default.removeItem(at: fixture.notesDirectory)
            do {  // closed before the damage, so SQLite does not write over it
                let store = try fixture.store()
                try store.add(path: path)
                try store.add(path: path)
            }
            try damage()
        }
        func expectRefusal(_ problem: String) {
            XCTAssertThrowsError(try fixture.store(), problem) {
                guard case let .needsRepair(_, found, recordings) = $0 as? NotesError else { return XCTFail("\($0)") }
                XCTAssertTrue(found.contains(problem), found)
                XCTAssertEqual(recordings, 2)
                XCTAssertTrue($0.localizedDescription.contains("nothing was changed"), $0.localizedDescription)
            }
        }
        let cases: [(String, () throws -> Void)] = [
            ("the notes database is missing", {
                for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: database.path + suffix) }
            }),
            ("the notes database is empty", {
                for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: database.path + suffix) }
                try Data().write(to: database)
            }),
            ("the notes database is damaged", {
                for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: database.path + suffix) }
                var bytes = try Data(contentsOf: database)
                for i in 0..<64 { bytes[i] = 0x5A }  // the header: no longer a database
                try bytes.write(to: database)
            }),
        ]
        for (problem, damage) in cases {
            try reset(damage)
            expectRefusal(problem)
            let repair = try NotesStore.repair(directory: fixture.notesDirectory)
            XCTAssertEqual(repair.recovered, 2, problem)
            XCTAssertEqual(repair.damagedDatabase != nil, problem.hasSuffix("damaged"), problem)
            if let aside = repair.damagedDatabase { XCTAssertTrue(FileManager.default.fileExists(atPath: aside)) }
            let notes = try fixture.store().list()
            XCTAssertEqual(notes.count, 2)
            XCTAssertTrue(notes.allSatisfy { $0.tags == ["recovered"] && $0.stages.allSatisfy { $0.state == .pending } })
        }
    }

    /// A database whose header is sound but whose pages fail SQLite's quick check opens read-only: what can
    /// be read is shown, every change is refused naming the repair, and the damaged file is not written to.
    func testDamagedPagesOpenReadOnlyAndRefuseChanges() throws {
        let path = try fixture.speech("Remember to call the plumber.", name: "memo.wav")
        let database = fixture.notesDirectory.appendingPathComponent("notes.db")
        do {  // closed before the damage, so SQLite does not write over it
            let store = try fixture.store()
            try store.add(path: path, tags: ["home"])
            try store.add(path: path)
        }
        for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: database.path + suffix) }
        var bytes = try Data(contentsOf: database)
        let page = 4096
        XCTAssertGreaterThanOrEqual(bytes.count / page, 4)
        for i in (bytes.count - page)..<bytes.count { bytes[i] = 0x5A }  // the last page: garbage
        try bytes.write(to: database)
        let recordings = try FileManager.default.contentsOfDirectory(atPath: fixture.notesDirectory.appendingPathComponent("audio").path)

        let store = try fixture.store()
        let damage = try XCTUnwrap(store.damage)
        XCTAssertTrue(damage.hasPrefix("the notes database is damaged ("), damage)
        func expectRefusal(_ what: String, _ change: () throws -> Void) {
            XCTAssertThrowsError(try change(), what) {
                guard case let .needsRepair(_, problem, count) = $0 as? NotesError else { return XCTFail("\(what): \($0)") }
                XCTAssertTrue(problem.hasSuffix("it is open read-only"), problem)
                XCTAssertEqual(count, 2)
            }
        }
        XCTAssertEqual(try store.list().map(\.tags), [[], ["home"]], "what the damage left readable is shown")
        expectRefusal("add") { try store.add(path: path) }
        expectRefusal("edit") { try store.edit(1, title: "plumber") }
        expectRefusal("delete") { try store.delete(1) }
        XCTAssertEqual(try Data(contentsOf: database), bytes, "the damaged file is left as it was")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: fixture.notesDirectory.appendingPathComponent("audio").path),
                       recordings, "no recording copied in")

        // repair carries over what could still be read (the notes and their tags, under their ids), not just the
        // recordings
        let readable = try store.list()
        let repair = try NotesStore.repair(directory: fixture.notesDirectory)
        XCTAssertEqual(repair.carried + repair.recovered, 2, "\(repair)")
        XCTAssertGreaterThanOrEqual(repair.carried, 1, "\(repair)")
        let repaired = try fixture.store()
        XCTAssertNil(repaired.damage)
        for note in readable where repair.carried == 2 || note.tags == ["home"] {
            let again = try repaired.note(note.id)
            XCTAssertEqual(again.tags, note.tags)
            XCTAssertEqual(again.title, note.title)
            XCTAssertEqual(again.sourceName, note.sourceName)
        }
    }

    /// Repair carries every note the damaged database still gives, with what the pipeline wrote for it, its id
    /// and tags; its finished stages stay finished, but for the embedding (not carried, so redone).
    func testRepairCarriesOverWhatTheDamagedDatabaseStillGives() throws {
        let path = try fixture.speech("Remember to call the plumber.", name: "memo.wav")
        let database = fixture.notesDirectory.appendingPathComponent("notes.db")
        do {
            let store = try fixture.store()
            for i in 0..<40 { try store.add(path: path, tags: ["batch", "n\(i)"]) }
            try store.edit(3, title: "Call the plumber")
            try store.saveTemplate(name: "errand", instructions: "Who to see and when.", sections: ["Who", "When"])
            try store.setTemplate(of: 3, to: "errand", rewrite: false)
            try store.db.query("UPDATE stages SET state = 'done', completions = 1 WHERE note_id = 3")
            try store.db.query("UPDATE notes SET transcript = 'Remember to call the plumber.', summary = 'A call to make.' WHERE id = 3")
            // note 20's row fills pages of its own, marked so the test can find them
            try store.db.query("UPDATE notes SET transcript = ? WHERE id = 20", [.text(String(repeating: "zebra crossing ", count: 600))])
        }
        for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: database.path + suffix) }
        var bytes = try Data(contentsOf: database)
        let page = 4096, marker = Data("zebra crossing zebra crossing".utf8)
        var damaged = 0
        // every overflow page holding note 20's words (not the b-tree pages they start on, which hold other rows too):
        // garbage, so that row alone cannot be read
        let btreePages: Set<UInt8> = [0x02, 0x05, 0x0A, 0x0D]
        for start in stride(from: page, to: bytes.count, by: page)
        where !btreePages.contains(bytes[start]) && bytes[start..<min(bytes.count, start + page)].range(of: marker) != nil {
            for i in start..<min(bytes.count, start + page) { bytes[i] = 0x5A }
            damaged += 1
        }
        XCTAssertGreaterThan(damaged, 0)
        try bytes.write(to: database)
        let damagedStore = try fixture.store()
        XCTAssertNotNil(damagedStore.damage)
        XCTAssertEqual(try damagedStore.list().count, 39, "read-only, every note but the damaged one is listed")
        XCTAssertEqual(try damagedStore.list(tag: "n2").map(\.id), [3], "filters work past the damage")
        XCTAssertEqual(try damagedStore.list(limit: 5).map(\.id), [40, 39, 38, 37, 36], "newest first")
        XCTAssertThrowsError(try damagedStore.note(20), "the damaged note is an error, not an empty note")
        let damagedSearch = NotesSearch(store: damagedStore, modelStore: fixture.modelStore)
        XCTAssertEqual(try damagedSearch.search("PLUMBER", mode: .words).map(\.id), [3], "search shows what can be read")
        XCTAssertEqual(try damagedSearch.search("zebra", mode: .words).map(\.id), [], "the damaged note's words are gone with it, "
                       + "and looking for them is no error")

        let repair = try NotesStore.repair(directory: fixture.notesDirectory)
        print("repair of a 40-note store with \(damaged) pages garbage: \(repair)")
        XCTAssertEqual(repair.carried + repair.recovered, 40, "\(repair)")
        XCTAssertEqual(repair.recovered, 1, "note 20 was lost with its pages, and made again from its recording: \(repair)")
        XCTAssertEqual(repair.carried, 39, "the rest carried over, row by row past the damage")
        let store = try fixture.store()
        let note = try store.note(3)
        XCTAssertEqual(note.title, "Call the plumber")
        XCTAssertEqual(note.transcript, "Remember to call the plumber.")
        XCTAssertEqual(note.tags, ["batch", "n2"])
        XCTAssertEqual(note.template, "errand", "templates and the notes' choices are carried too")
        XCTAssertEqual(try store.template(named: "errand").sections, ["Who", "When"])
        XCTAssertEqual(note.stages.map(\.state), [.done, .done, .pending], "transcribe and summarise stay done; embed is redone")
        XCTAssertEqual(try NotesSearch(store: store, modelStore: fixture.modelStore).search("plumber", mode: .words).map(\.id), [3],
                       "the words index holds carried notes")
        XCTAssertEqual(try store.list().count, 40, "every recording is a note")
    }

    /// Garbage over page 2, the root of the notes table: SQLite reaches no note any more, though the leaf pages that
    /// hold them are intact. Repair reads those pages itself and carries every note with its id, title, summary,
    /// action items, transcript, segments (speaker names) and tags — none made again from its recording — and the people
    /// heard in them, with the voices of a table whose root is damaged too.
    func testRepairAfterTheNotesTablesRootIsDamagedCarriesEveryNoteWithItsMetadata() throws {
        let database = fixture.notesDirectory.appendingPathComponent("notes.db")
        var before: [[SQLValue]] = [], voicesBefore: [[SQLValue]] = [], people: [Person] = [], voicesRoot = 0
        do {
            let store = try fixture.store()
            for i in 1...30 {
                let id = try fixture.note(store, title: "Note \(i) about the booth", transcript: String(repeating: "words of note \(i). ", count: 20),
                                          tags: ["n\(i)", "work"])
                let segments = #"[{"start":0,"end":1.5,"text":"I will send it.","speaker":"Ruth Jones"}]"#
                try store.db.query("UPDATE notes SET summary = ?, actions = ?, segments = ? WHERE id = ?",
                                   [.text("Summary \(i)."), .text(#"["Ruth Jones: send it"]"#), .text(segments), .integer(Int64(id))])
            }
            // two people heard in every note, one named; each voice with a voiceprint, so their rows fill pages of their own
            try store.db.query("INSERT INTO people (id, name, created) VALUES (1, 'Ruth Jones', 1), (2, NULL, 2)")
            for i in 1...30 {
                for (person, label) in [(1, "Ruth Jones"), (2, "SPEAKER_02")] {
                    let print = SemanticIndex.blob((0..<192).map { Float(($0 * 7 + i * 13 + person) % 97) / 97 })
                    try store.db.query("INSERT INTO voices (note_id, label, person_id, seconds, voiceprint) VALUES (?, ?, ?, ?, ?)",
                                       [.integer(Int64(i)), .text(label), .integer(Int64(person)), .real(Double(i) + 0.5), .blob(print)])
                }
            }
            try store.delete(30)  // the highest id: never given again, repair or not
            XCTAssertEqual(try store.db.query("SELECT rootpage FROM sqlite_master WHERE name = 'notes'").first?.first?.int, 2)
            voicesRoot = try XCTUnwrap(try store.db.query("SELECT rootpage FROM sqlite_master WHERE name = 'voices'").first?.first?.int)
            voicesBefore = try store.db.query("SELECT note_id, label, person_id, seconds, voiceprint FROM voices ORDER BY note_id, label")
            people = try store.people()
            XCTAssertEqual(people.map(\.notes.count), [29, 29])
            before = try store.db.query("SELECT \(NotesStore.noteColumns) FROM notes ORDER BY id")
            XCTAssertEqual(before.count, 29)
            try store.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        }
        for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: database.path + suffix) }
        var bytes = try Data(contentsOf: database)
        let page = Int(bytes[16]) << 8 | Int(bytes[17])
        XCTAssertNotEqual(bytes[page], 0x0D, "page 2 is an interior page above the notes' leaves")
        for i in page..<(2 * page) { bytes[i] = UInt8(truncatingIfNeeded: i &* 2_654_435_761 >> 13) }
        // the voices table's root too: its rows are then found only by reading its leaf pages
        let voicesPage = (voicesRoot - 1) * page
        XCTAssertEqual(bytes[voicesPage], 0x05, "the voices table's root is an interior page above its leaves")
        for i in voicesPage..<(voicesPage + page) { bytes[i] = UInt8(truncatingIfNeeded: i &* 2_654_435_761 >> 11) }
        try bytes.write(to: database)

        let damaged = try fixture.store()
        XCTAssertNotNil(damaged.damage, "the damage is found, not read as an empty store")
        let repair = try NotesStore.repair(directory: fixture.notesDirectory)
        XCTAssertEqual(repair.carried, 29, "\(repair)")
        XCTAssertEqual(repair.recovered, 0, "no note made again from its recording: \(repair)")
        let store = try fixture.store()
        XCTAssertNil(store.damage)
        let after = try store.db.query("SELECT \(NotesStore.noteColumns) FROM notes ORDER BY id")
        XCTAssertEqual(after, before, "every note as it was: ids, titles, summaries, actions, transcripts, segments")
        XCTAssertEqual(try store.people(), people, "the people heard in them too, named or not, with their voices")
        XCTAssertEqual(try store.db.query("SELECT note_id, label, person_id, seconds, voiceprint FROM voices ORDER BY note_id, label"),
                       voicesBefore, "every voice with its voiceprint, read from the voices table's leaf pages")
        let note = try store.note(7)
        XCTAssertEqual(note.tags, ["n7", "work"])
        XCTAssertEqual(note.speakers, ["Ruth Jones"])
        XCTAssertEqual(note.stages.map(\.state), [.done, .done, .pending], "finished stages stay finished; embed is redone")
        XCTAssertEqual(try NotesSearch(store: store, modelStore: fixture.modelStore).search("booth", mode: .words, limit: 50).count, 29)
        XCTAssertEqual(try store.add(path: try fixture.speech("A new note.", name: "new.wav")), 31, "note 30's id is not given again")
    }

    /// The page scan reads a damaged file, so any bytes may be in it: flipped bytes anywhere, a file cut short, one
    /// shorter than a page. Whatever it finds, it must not crash or loop.
    func testThePageScanSurvivesAnyDamage() throws {
        do {
            let store = try fixture.store()
            for i in 1...12 { try fixture.note(store, title: "Note \(i)", transcript: String(repeating: "word \(i) ", count: 300)) }
        }
        let database = fixture.notesDirectory.appendingPathComponent("notes.db")
        let original = [UInt8](try Data(contentsOf: database))
        XCTAssertEqual(SQLitePageScan(file: database)?.rows().filter { $0.values.count == 13 }.count, 12, "an intact file gives every note")
        var random = SystemRandomNumberGenerator()
        let damaged = fixture.home.appendingPathComponent("damaged.db")
        for round in 0..<150 {
            var bytes = original
            switch round % 3 {
            case 0: for _ in 0..<64 { bytes[Int.random(in: 100..<bytes.count, using: &random)] = UInt8.random(in: 0...255, using: &random) }
            case 1: bytes = Array(bytes.prefix(Int.random(in: 100..<bytes.count, using: &random)))
            default:
                let page = 4096 * Int.random(in: 0..<(bytes.count / 4096), using: &random)
                for i in max(100, page)..<min(bytes.count, page + 4096) { bytes[i] = UInt8.random(in: 0...255, using: &random) }
            }
            try Data(bytes).write(to: damaged)
            _ = SQLitePageScan(file: damaged)?.rows()
        }
        try Data(original.prefix(600)).write(to: damaged)
        XCTAssertEqual(SQLitePageScan(file: damaged)?.rows().count, 0, "shorter than a page: nothing to read")
    }

    /// A deleted note's id is never given again, so a stale client's DELETE or a late job cannot reach a newer note.
    func testADeletedNotesIdIsNeverGivenAgain() throws {
        let store = try fixture.store()
        let path = try fixture.speech("Remember to call the plumber.", name: "memo.wav")
        XCTAssertEqual(try store.add(path: path), 1)
        XCTAssertEqual(try store.add(path: path), 2)
        try store.delete(2)
        XCTAssertEqual(try store.add(path: path), 3)
        try store.delete(3)
        try store.delete(1)
        XCTAssertEqual(try fixture.store().add(path: path), 4, "nor by another process opening the store")
        XCTAssertThrowsError(try store.note(3)) { XCTAssertEqual($0 as? NotesError, .unknownNote(3)) }
    }

    func testNonAudioCorruptAndMissingFilesAreRefusedAndNothingIsStored() throws {
        let store = try fixture.store()
        let text = fixture.home.appendingPathComponent("notes.txt")
        try "shopping list: eggs".write(to: text, atomically: true, encoding: .utf8)
        let truncated = fixture.home.appendingPathComponent("cut.wav")
        try TestAudio.wav16(TestAudio.tone(frequency: 300, seconds: 1, rate: 16_000), rate: 16_000).prefix(30).write(to: truncated)
        let empty = fixture.home.appendingPathComponent("empty.wav")
        try Data().write(to: empty)
        // a float WAV whose header is fine and whose samples are NaN: decodes, but cannot be sound
        let nan = fixture.home.appendingPathComponent("nan.wav")
        var samples = TestAudio.tone(frequency: 300, seconds: 1, rate: 16_000)
        samples[8_000] = .nan
        var body = Data()
        for s in samples { withUnsafeBytes(of: s.bitPattern.littleEndian) { body.append(contentsOf: $0) } }
        try TestAudio.wavFile(format: 3, channels: 1, rate: 16_000, bits: 32, body: body).write(to: nan)
        for path in [text.path, truncated.path, empty.path, nan.path, fixture.home.appendingPathComponent("missing.wav").path] {
            XCTAssertThrowsError(try store.add(path: path)) {
                let message = $0.localizedDescription
                XCTAssertTrue(message.hasPrefix(path + ": ") && message.hasSuffix("nothing was stored"), message)
            }
        }
        XCTAssertEqual(store.count, 0)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: store.audioDirectory.path), [])
    }

    func testWordSearchIgnoresCaseAndAccentsAndRanksTitleMatches() throws {
        let store = try fixture.store()
        let cafe = try fixture.note(store, title: "Morning plans", transcript: "Meet Zoë at the Café on Rue Saint-Honoré at nine.")
        let other = try fixture.note(store, title: "Cafe opening", transcript: "The new place downstairs opens next week.")
        _ = try fixture.note(store, title: "Budget", transcript: "Quarterly costs went up by ten percent.")
        let search = NotesSearch(store: store, modelStore: fixture.modelStore)
        for query in ["cafe", "CAFÉ", "Cafe", "zoe", "honore"] {
            let ids = try search.search(query, mode: .words).map(\.id)
            XCTAssertTrue(ids.contains(cafe), "\(query) finds the café note: \(ids)")
        }
        XCTAssertEqual(try search.search("cafe", mode: .words).first?.id, other, "a title match ranks first")
        XCTAssertEqual(try search.search("cafe zoe", mode: .words).map(\.id), [cafe], "all words must appear")
        XCTAssertEqual(try search.search("budget OR honore", mode: .words).count, 2, "FTS5 syntax passes through")
        let hit = try search.search("saint", mode: .words, highlight: .brackets).first
        XCTAssertTrue(hit?.snippet.contains("[Saint]") ?? false, hit?.snippet ?? "no hit")
    }

    func testBadQueriesAndUnknownIdsGiveClearErrors() throws {
        let store = try fixture.store()
        _ = try fixture.note(store, title: "A", transcript: "alpha beta")
        let search = NotesSearch(store: store, modelStore: fixture.modelStore)
        XCTAssertThrowsError(try search.search("   ")) { XCTAssertEqual($0 as? NotesError, .emptyQuery) }
        for bad in ["alpha AND (beta", "\"unclosed", "NOT", "alpha AND"] {
            XCTAssertThrowsError(try search.search(bad, mode: .words)) {
                let message = $0.localizedDescription
                XCTAssertTrue(message.hasPrefix("cannot search for '\(bad)': malformed search syntax"), message)
                XCTAssertFalse(message.contains("SELECT"), "no SQL in messages: \(message)")
            }
        }
        XCTAssertThrowsError(try search.search("!!!", mode: .words)) {
            XCTAssertTrue($0.localizedDescription.contains("no words to look for"), $0.localizedDescription)
        }
        XCTAssertThrowsError(try store.note(999)) { XCTAssertEqual($0 as? NotesError, .unknownNote(999)) }
        XCTAssertThrowsError(try store.delete(999)) { XCTAssertEqual($0 as? NotesError, .unknownNote(999)) }
        XCTAssertThrowsError(try store.edit(999, title: "x")) { XCTAssertEqual($0 as? NotesError, .unknownNote(999)) }
    }

    /// Notes in which a person speaks: their name as the segments store it, in either Unicode form; '_' in a
    /// name is a letter, not LIKE's wildcard.
    func testNotesAreListedBySpeaker() throws {
        let store = try fixture.store()
        func labelled(_ speakers: [String]) throws -> Int {
            let id = try fixture.note(store, title: speakers.joined(separator: " and "), transcript: "words")
            let segments = speakers.enumerated().map { i, name -> TranscriptSegment in
                var s = TranscriptSegment(start: Double(i), end: Double(i) + 1, text: "hello")
                s.speaker = name
                return s
            }
            try store.db.query("UPDATE notes SET segments = ? WHERE id = ?",
                               [.text(String(decoding: try JSONEncoder().encode(segments), as: UTF8.self)), .integer(Int64(id))])
            return id
        }
        let ruth = try labelled(["Ruth", "SPEAKER_01"]), zoe = try labelled(["Zo\u{00EB}"]), plain = try fixture.note(store, title: "x", transcript: "y")
        XCTAssertEqual(try store.list(speaker: "Ruth").map(\.id), [ruth])
        XCTAssertEqual(try store.list(speaker: "SPEAKER_01").map(\.id), [ruth])
        XCTAssertEqual(try store.list(speaker: "SPEAKERx01").map(\.id), [], "'_' is not a wildcard")
        XCTAssertEqual(try store.list(speaker: "Zoe\u{0308}").map(\.id), [zoe], "a decomposed ë is the same name")
        XCTAssertEqual(try store.list(speaker: "Rut").map(\.id), [], "a whole name, not a prefix")
        XCTAssertEqual(Set(try store.list().map(\.id)), [ruth, zoe, plain])
    }

    func testEditDeleteAndSchemaVersion() throws {
        let store = try fixture.store()
        let id = try fixture.note(store, title: "Old", transcript: "words", tags: ["a"])
        try store.edit(id, title: "New title", addTags: ["b"], removeTags: ["a"])
        var note = try store.note(id)
        XCTAssertEqual(note.title, "New title")
        XCTAssertEqual(note.titleBy, "user")
        XCTAssertEqual(note.tags, ["b"])
        XCTAssertEqual(try NotesSearch(store: store, modelStore: fixture.modelStore).search("new", mode: .words).map(\.id), [id])
        note = try store.note(id)
        try store.delete(id)
        XCTAssertFalse(FileManager.default.fileExists(atPath: note.audioPath), "the recording goes with the note")
        XCTAssertEqual(try NotesSearch(store: store, modelStore: fixture.modelStore).search("new", mode: .words).count, 0)
        XCTAssertEqual(try store.db.query("PRAGMA user_version").first?.first?.int, NotesSchema.migrations.count)
        XCTAssertEqual(try store.db.query("PRAGMA journal_mode").first?.first?.string, "wal")
        try store.db.execute("PRAGMA user_version = 99")
        XCTAssertThrowsError(try NotesStore(directory: store.directory)) {
            XCTAssertTrue($0.localizedDescription.contains("schema version 99"), $0.localizedDescription)
        }
    }

    func testExportsParse() throws {
        let store = try fixture.store()
        let id = try fixture.note(store, title: "Café plans", transcript: "first part. second part.")
        let segments = [TranscriptSegment(start: 0, end: 1.5, text: "first part."), TranscriptSegment(start: 1.5, end: 3.25, text: "second part.")]
        try store.db.query("UPDATE notes SET segments = ?, summary = 'Plans.', actions = '[\"Book a table\"]' WHERE id = ?",
                           [.text(String(decoding: try JSONEncoder().encode(segments), as: UTF8.self)), .integer(Int64(id))])
        let note = try store.note(id)
        let dir = fixture.home.appendingPathComponent("out")
        let srt = try String(contentsOf: NotesExporter.export(note, format: .srt, to: dir), encoding: .utf8)
        XCTAssertTrue(srt.hasPrefix("1\n00:00:00,000 --> 00:00:01,500\nfirst part.\n\n2\n00:00:01,500 --> 00:00:03,250\nsecond part."), srt)
        let vtt = try String(contentsOf: NotesExporter.export(note, format: .vtt, to: dir), encoding: .utf8)
        XCTAssertTrue(vtt.hasPrefix("WEBVTT\n\n") && vtt.contains("00:00:01.500 --> 00:00:03.250\nsecond part."), vtt)
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: NotesExporter.export(note, format: .json, to: dir))) as! [String: Any]
        XCTAssertEqual(json["title"] as? String, "Café plans")
        // an item stored before items had owners (a plain string) exports as an item without one
        let items = try XCTUnwrap(json["actions"] as? [[String: Any]])
        XCTAssertEqual(items.map { $0["text"] as? String }, ["Book a table"])
        XCTAssertTrue(items.allSatisfy { $0["owner"] is NSNull && $0["done"] as? Bool == false }, "\(items)")
        XCTAssertEqual((json["segments"] as? [[String: Any]])?.count, 2)
        let md = try String(contentsOf: NotesExporter.export(note, format: .md, to: dir), encoding: .utf8)
        XCTAssertTrue(md.hasPrefix("# Café plans\n") && md.contains("- [ ] Book a table") && md.contains("[00:01] second part."), md)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted(),
                       ["\(id)-cafe-plans.json", "\(id)-cafe-plans.md", "\(id)-cafe-plans.srt", "\(id)-cafe-plans.vtt"])
    }
}
