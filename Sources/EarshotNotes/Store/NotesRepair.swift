import EarshotCore
import Foundation

/// What `NotesStore.repair` did.
public struct NotesRepair: Sendable, Codable, Equatable {
    /// Notes read back from the damaged database, with their ids, titles, summaries, action items, transcripts,
    /// tags and the people heard in them; their finished stages stay finished (but for meaning search's embedding, redone).
    public var carried: Int
    /// Notes made again from stored recordings the damaged database no longer showed (their stages queued:
    /// transcripts, titles and summaries are redone), tagged `recovered`.
    public var recovered: Int
    /// Stored files that are not readable audio, left where they are.
    public var skipped: [String]
    /// Where the damaged database was moved, when there was one.
    public var damagedDatabase: String?

    private enum CodingKeys: String, CodingKey { case carried, recovered, skipped, damagedDatabase = "damaged_database" }
}

extension NotesStore {
    /// Rebuilds a store whose database is missing, empty or damaged: every note the old database can still give
    /// (row by row, past damaged pages) is carried over with its id and everything written for it, then every
    /// other readable recording becomes a note again, dated by its file, with all its stages queued. The old
    /// database is moved aside, never deleted. Runs under the store's lock, so no other process repairs too.
    public static func repair(directory: URL = NotesStore.defaultDirectory()) throws -> NotesRepair {
        try FileLock.withExclusiveLock(at: directory.appendingPathComponent(".repair.lock")) {
            let database = directory.appendingPathComponent(databaseName)
            var movedAside: String?
            let size = (try? FileManager.default.attributesOfItem(atPath: database.path)[.size] as? Int) ?? nil
            // what the old database still gives, read before it is moved aside: through SQLite, then from its leaf pages
            // what SQLite cannot reach (nothing when not even its header reads)
            let old = (size ?? 0) > 0 ? try? NotesStore(directory: directory) : nil
            let read = old.map(CarriedNote.read) ?? []
            let scan = (size ?? 0) > 0 ? SQLitePageScan(file: database).map(ScannedNotes.init) : nil
            let readable = read + (scan?.notes(except: Set(read.map(\.id))) ?? [])
            var people = old.map(CarriedPeople.read) ?? CarriedPeople()
            if let scan { people.add(scan.people) }
            let templates = old.map(CarriedTemplates.read) ?? CarriedTemplates()
            let lastID = max(old.flatMap { try? $0.db.query("SELECT last FROM note_ids").first?.first?.int } ?? 0, scan?.lastID ?? 0)
            if let size {
                if size > 0 {
                    let stamp = ISO8601DateFormatter().string(from: Date()).replacingOccurrences(of: ":", with: "-")
                    let aside = directory.appendingPathComponent("\(databaseName).damaged-\(stamp)")
                    do { try FileManager.default.moveItem(at: database, to: aside) } catch {
                        throw NotesError.storage(path: database.path, problem: "cannot move the damaged database aside (\(reason(error)))")
                    }
                    movedAside = aside.path
                } else {
                    try? FileManager.default.removeItem(at: database)
                }
            }
            for suffix in ["-wal", "-shm"] {  // the old database's journal belongs to it, not to the new one
                let journal = URL(fileURLWithPath: database.path + suffix)
                if let aside = movedAside { try? FileManager.default.moveItem(at: journal, to: URL(fileURLWithPath: aside + suffix)) }
                try? FileManager.default.removeItem(at: journal)
            }
            let store = try NotesStore(directory: directory, rebuilding: true)
            var carried = 0
            for note in readable where FileManager.default.fileExists(atPath: store.audioDirectory.appendingPathComponent(note.audioFile).path) {
                try store.carry(note)
                carried += 1
            }
            try store.carry(people)
            try store.carry(templates)
            // ids given before the damage are not given again, deleted ones included
            try store.guarded { try store.db.query("UPDATE note_ids SET last = MAX(last, ?)", [.integer(Int64(lastID))]) }
            let known = Set(try store.guarded { try store.db.query("SELECT audio_file FROM notes") }.compactMap { $0.first?.string })
            var recovered = 0, skipped: [String] = []
            for file in recordings(in: store.audioDirectory) where !known.contains(file.lastPathComponent) {
                guard let duration = try? AudioFileLoader().duration(path: file.path) else { skipped.append(file.path); continue }
                let created = (try? FileManager.default.attributesOfItem(atPath: file.path)[.modificationDate] as? Date) ?? Date()
                _ = try store.insertNote(stored: file.lastPathComponent, name: file.lastPathComponent, duration: duration,
                                         created: created, tags: ["recovered"])
                recovered += 1
            }
            return NotesRepair(carried: carried, recovered: recovered, skipped: skipped, damagedDatabase: movedAside)
        }
    }
}

/// A note as a damaged database still gives it.
struct CarriedNote {
    var id: Int
    var row: [SQLValue]  // NotesStore.noteColumns
    var tags: [String]
    var done: Set<NoteStage>

    var audioFile: String { row[3].string ?? "" }

    /// Every note a store's database can still give, each read on its own (a damaged page loses the rows on it,
    /// not the rest), with its tags and finished stages when those can be read.
    static func read(from store: NotesStore) -> [CarriedNote] {
        store.readableRows("SELECT \(NotesStore.noteColumns) FROM notes WHERE 1", []).compactMap { row in
            guard let id = row[0].int, row.count == 12, row[3].string != nil else { return nil }
            let tags = (try? store.db.query("SELECT tag FROM tags WHERE note_id = ? ORDER BY tag", [.integer(Int64(id))]))?
                .compactMap { $0.first?.string }
            let done = (try? store.db.query("SELECT stage FROM stages WHERE note_id = ? AND state = 'done'", [.integer(Int64(id))]))?
                .compactMap { $0.first?.string.flatMap(NoteStage.init(rawValue:)) }
            return CarriedNote(id: id, row: row, tags: tags ?? [], done: Set(done ?? []))
        }
    }
}

extension NotesStore {
    /// Puts a carried note back under its own id: its content, its tags, and its finished stages finished (the
    /// embedding is not carried: meaning search's stage runs again).
    func carry(_ note: CarriedNote) throws {
        try guarded {
            try db.transaction {
                let r = note.row
                try db.query("""
                    INSERT INTO notes (id, created, source_name, audio_file, duration, title, title_by, summary, actions, transcript,
                                       segments, language_model) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """, [.integer(Int64(note.id))] + Array(r[1...]))
                for stage in NoteStage.allCases {
                    let done = note.done.contains(stage) && stage != .embed
                    try db.query("INSERT INTO stages (note_id, stage, position, state, completions) VALUES (?, ?, ?, ?, ?)",
                                 [.integer(Int64(note.id)), .text(stage.rawValue), .integer(Int64(stage.position)),
                                  .text(done ? "done" : "pending"), .integer(done ? 1 : 0)])
                }
                for tag in note.tags {
                    try db.query("INSERT OR IGNORE INTO tags (note_id, tag) VALUES (?, ?)", [.integer(Int64(note.id)), .text(tag)])
                }
            }
        }
    }
}

/// The people of a damaged database and the voices of its notes (each linked to its person), as far as they can
/// still be read: names given and voices linked survive a repair like the notes they belong to.
struct CarriedPeople {
    struct Someone { var name: String?; var created: Double }
    var people: [Int: Someone] = [:]
    /// By note and label: `note_id, label, person_id, seconds, voiceprint` as the voices table has them.
    var voices: [String: [SQLValue]] = [:]

    static func read(from store: NotesStore) -> CarriedPeople {
        var carried = CarriedPeople()
        for row in (try? store.db.query("SELECT id, name, created FROM people")) ?? [] {
            carried.addPerson(row)
        }
        for row in (try? store.db.query("SELECT note_id, label, person_id, seconds, voiceprint FROM voices")) ?? [] {
            carried.addVoice(row)
        }
        return carried
    }

    mutating func addPerson(_ row: [SQLValue]) {
        guard row.count == 3, let id = row[0].int, people[id] == nil, let created = row[2].double else { return }
        people[id] = Someone(name: row[1].string, created: created)
    }

    mutating func addVoice(_ row: [SQLValue]) {
        guard row.count == 5, let note = row[0].int, let label = row[1].string, row[2].int != nil, row[3].double != nil else { return }
        let key = "\(note)\u{0}\(label)"
        if voices[key] == nil { voices[key] = row }
    }

    /// What `other` found that this has not.
    mutating func add(_ other: CarriedPeople) {
        for (id, someone) in other.people where people[id] == nil { people[id] = someone }
        for (key, row) in other.voices where voices[key] == nil { voices[key] = row }
    }
}

extension NotesStore {
    /// Puts back the voices of the notes the store now has, and the people they belong to or who were named; a voice
    /// whose person is lost, or a name someone already has, is left out rather than guessed.
    func carry(_ carried: CarriedPeople) throws {
        try guarded {
            try db.transaction {
                let notes = Set(try db.query("SELECT id FROM notes").compactMap { $0.first?.int })
                let voices = carried.voices.values.filter { row in
                    notes.contains(row[0].int!) && carried.people[row[2].int!] != nil
                }
                let heard = Set(voices.map { $0[2].int! })
                for (id, someone) in carried.people.sorted(by: { $0.key < $1.key }) where someone.name != nil || heard.contains(id) {
                    try db.query("INSERT OR IGNORE INTO people (id, name, created) VALUES (?, ?, ?)",
                                 [.integer(Int64(id)), someone.name.map { .text($0) } ?? .null, .real(someone.created)])
                }
                let people = Set(try db.query("SELECT id FROM people").compactMap { $0.first?.int })
                for row in voices where people.contains(row[2].int!) {
                    try db.query("INSERT OR IGNORE INTO voices (note_id, label, person_id, seconds, voiceprint) VALUES (?, ?, ?, ?, ?)", row)
                }
            }
        }
    }
}

/// The notes, tags and finished stages found on a damaged database's leaf pages (`SQLitePageScan`), told apart by
/// the shape of their rows: a note has the notes table's 13 columns with its id as the row id, a tag is a note id
/// and a word, a stage row names a stage of `NoteStage`, a person is a name (or none) and a time with their id as
/// the row id, a voice is a note id, label, person id, seconds and voiceprint.
struct ScannedNotes {
    var rows: [Int: [SQLValue]] = [:]  // by id, as `NotesStore.noteColumns`
    var tags: [Int: Set<String>] = [:]
    var done: [Int: Set<NoteStage>] = [:]
    var lastID = 0
    var people = CarriedPeople()

    init(_ scan: SQLitePageScan) {
        for row in scan.rows() {
            let v = row.values
            switch v.count {
            case 13 where v[0] == .null && v[1].double != nil && v[2].string != nil && v[3].string != nil && v[4].double != nil
                && (5...11).allSatisfy({ v[$0].string != nil }):
                let id = Int(row.rowid)
                if id > 0, rows[id] == nil { rows[id] = [.integer(row.rowid)] + Array(v[1...11]) }
            case 2:
                if let id = v[0].int, let tag = v[1].string { tags[id, default: []].insert(tag) }
            case 10, 11:
                if let id = v[0].int, let stage = v[1].string.flatMap(NoteStage.init(rawValue:)), v[3].string == "done" {
                    done[id, default: []].insert(stage)
                }
            case 1:
                if let last = v[0].int { lastID = max(lastID, last) }
            case 3 where v[0] == .null && (v[1].string != nil || v[1] == .null) && v[2].double != nil:
                people.addPerson([.integer(row.rowid), v[1], v[2]])
            case 5 where v[0].int != nil && v[1].string != nil && v[2].int != nil && v[3].double != nil && (v[4].data != nil || v[4] == .null):
                people.addVoice(v)
            default: break
            }
        }
    }

    /// The notes found, but for those already read through SQLite.
    func notes(except known: Set<Int>) -> [CarriedNote] {
        rows.keys.sorted().filter { !known.contains($0) }.map { id in
            CarriedNote(id: id, row: rows[id]!, tags: (tags[id] ?? []).sorted(), done: done[id] ?? [])
        }
    }
}
