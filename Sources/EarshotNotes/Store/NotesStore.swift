import EarshotCore
import EarshotSpeech
import EarshotVoice
import Foundation

/// Voice notes on disk: an SQLite database (WAL, versioned schema, FTS5 index) and the recordings, under
/// `EARSHOT_HOME/notes`. Recordings are copied in atomically (temporary file, then rename) and never
/// changed after; a note and its pipeline stages are inserted in one transaction, so a note exists with
/// all its work queued or not at all. Any number of processes may open the store at once.
public final class NotesStore {
    public let directory: URL
    public let audioDirectory: URL
    let db: SQLiteDatabase

    public static func defaultDirectory(_ store: ModelStore = ModelStore()) -> URL {
        store.home.appendingPathComponent("notes")
    }

    /// Why the database is open read-only, when it is: it failed SQLite's quick check. What can still be
    /// read is shown; every change is refused with `NotesError.needsRepair` (writing into a damaged file
    /// would spread the damage) until `NotesLibrary.repair` rebuilds it.
    public let damage: String?

    /// Opens the store, creating it when the folder is new. Refuses, with `NotesError.needsRepair`, a store
    /// whose database is missing or empty while recordings remain (starting afresh would orphan them and
    /// reuse their ids) or cannot be read at all; one that fails SQLite's quick check opens read-only.
    public convenience init(directory: URL = NotesStore.defaultDirectory()) throws {
        try self.init(directory: directory, rebuilding: false)
    }

    /// - Parameter rebuilding: open a missing database beside stored recordings (repair does, then adds them).
    init(directory: URL, rebuilding: Bool) throws {
        self.directory = directory
        audioDirectory = directory.appendingPathComponent("audio")
        let path = directory.appendingPathComponent(Self.databaseName).path
        do {
            try FileManager.default.createDirectory(at: audioDirectory, withIntermediateDirectories: true)
        } catch {
            throw NotesError.storage(path: directory.path, problem: "cannot create the folder (\(Self.reason(error)))")
        }
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? nil
        if !rebuilding, size ?? 0 == 0, case let recordings = Self.recordings(in: audioDirectory), !recordings.isEmpty {
            throw NotesError.needsRepair(path: path, problem: size == nil ? "the notes database is missing"
                : "the notes database is empty", recordings: recordings.count)
        }
        do {
            db = try SQLiteDatabase(path: path)
            damage = try Self.quickCheck(db)
            if damage != nil {
                try db.execute("PRAGMA query_only = ON")
            } else {
                try NotesSchema.migrate(db)
            }
        } catch let error as SQLiteDatabase.Failure {
            if error.isCorrupt {  // not even the header can be read
                throw NotesError.needsRepair(path: path, problem: "the notes database is damaged (\(error.message))",
                                             recordings: Self.recordings(in: audioDirectory).count)
            }
            throw Self.storageError(error, path: directory.path)
        }
    }

    /// What SQLite's quick check finds wrong, or nil when the database is sound.
    private static func quickCheck(_ db: SQLiteDatabase) throws -> String? {
        do {
            let check = try db.query("PRAGMA quick_check").compactMap { $0.first?.string }
            return check == ["ok"] ? nil : "the notes database is damaged (\(check.prefix(2).joined(separator: "; ")))"
        } catch let error as SQLiteDatabase.Failure where error.isCorrupt {
            return "the notes database is damaged (\(error.message))"
        }
    }

    static let databaseName = "notes.db"

    /// The stored recordings (not the half-copied ones a killed `add` may leave).
    static func recordings(in audio: URL) -> [URL] {
        ((try? FileManager.default.contentsOfDirectory(at: audio, includingPropertiesForKeys: nil)) ?? [])
            .filter { !$0.lastPathComponent.hasPrefix(".") }.sorted { $0.lastPathComponent < $1.lastPathComponent }
    }

    /// Runs store work, turning SQLite failures into messages about the store (never an SQL dump).
    @discardableResult
    func guarded<T>(_ body: () throws -> T) throws -> T {
        do { return try body() } catch let error as SQLiteDatabase.Failure {
            throw failure(error)
        }
    }

    /// A change refused up front while the database is damaged (before a recording is copied in).
    func requireWritable() throws {
        if let damage { throw damagedError(damage) }
    }

    /// An SQLite failure as a message about the store; on a damaged database, a refused write or an
    /// unreadable page says so and names the repair.
    func failure(_ error: SQLiteDatabase.Failure) -> NotesError {
        if let damage, error.isReadOnly || error.isCorrupt { return damagedError(damage) }
        return Self.storageError(error, path: directory.path)
    }

    private func damagedError(_ damage: String) -> NotesError {
        .needsRepair(path: directory.appendingPathComponent(Self.databaseName).path, problem: damage + "; it is open read-only",
                     recordings: Self.recordings(in: audioDirectory).count)
    }

    static func storageError(_ error: SQLiteDatabase.Failure, path: String) -> NotesError {
        if error.isDiskFull { return .storage(path: path, problem: "the disk is full; nothing was changed") }
        if error.isReadOnly { return .storage(path: path, problem: "the store is read-only or cannot be opened (check its permissions); nothing was changed") }
        if error.isBusy { return .storage(path: path, problem: "another process held the store for more than 10 s; try again") }
        return .storage(path: path, problem: error.message)
    }

    static func reason(_ error: Error) -> String {
        let ns = error as NSError
        // Foundation on Linux keeps the POSIX cause as a Swift error, which `as? NSError` does not find
        if let underlying = ns.userInfo[NSUnderlyingErrorKey] as? Error, (underlying as NSError).domain == NSPOSIXErrorDomain {
            return String(cString: strerror(Int32((underlying as NSError).code)))
        }
        return ns.localizedFailureReason ?? ns.localizedDescription
    }

    // MARK: adding

    /// Saves a recording as a new note with all its stages pending, and returns its id. The file is
    /// decoded first: anything that is not audio is refused and nothing is stored. `speakers`: how many people speak
    /// in it, when the caller knows (the transcribe stage's diarization then splits it into that many voices).
    /// `duration`: its length, when the caller has just decoded it whole (then it is not decoded again).
    @discardableResult
    public func add(path: String, tags: [String] = [], created: Date = Date(), sourceName: String? = nil, speakers: Int? = nil,
                    duration known: Double? = nil) throws -> Int {
        try requireWritable()
        if let speakers, !(1...Diarizer.maxSpeakers).contains(speakers) {
            throw NotesError.badSpeakerCount(speakers)
        }
        let duration: Double
        do { duration = try known ?? AudioFileLoader().duration(path: path) } catch {
            throw NotesError.notAudio(path: path, problem: Self.audioProblem(error, path: path))
        }
        let name = sourceName ?? URL(fileURLWithPath: path).lastPathComponent
        let ext = URL(fileURLWithPath: path).pathExtension.lowercased()
        let stored = UUID().uuidString.lowercased() + (ext.isEmpty ? "" : "." + ext)
        let target = audioDirectory.appendingPathComponent(stored)
        try copyAtomically(from: URL(fileURLWithPath: path), to: target)
        do {
            return try insertNote(stored: stored, name: name, duration: duration, created: created, tags: tags, speakers: speakers)
        } catch {
            try? FileManager.default.removeItem(at: target)  // no note refers to it
            throw error
        }
    }

    /// A note for a recording already in the audio folder, with every stage queued, in one transaction.
    func insertNote(stored: String, name: String, duration: Double, created: Date, tags: [String], speakers: Int? = nil) throws -> Int {
        try guarded {
            try db.transaction {
                try db.query("""
                    INSERT INTO notes (id, created, source_name, audio_file, duration)
                    VALUES ((SELECT last + 1 FROM note_ids), ?, ?, ?, ?)
                    """,
                             [.real(created.timeIntervalSince1970), .text(name), .text(stored), .real(duration)])
                let id = Int(db.lastInsertedRow)
                for stage in NoteStage.allCases {
                    try db.query("INSERT INTO stages (note_id, stage, position) VALUES (?, ?, ?)",
                                 [.integer(Int64(id)), .text(stage.rawValue), .integer(Int64(stage.position))])
                }
                try insertTags(tags, note: id)
                if let speakers {
                    try db.query("INSERT INTO note_speakers (note_id, count) VALUES (?, ?)", [.integer(Int64(id)), .integer(Int64(speakers))])
                }
                return id
            }
        }
    }

    /// How many people speak in note `id`, when whoever added it said.
    public func speakerCount(of id: Int) throws -> Int? {
        try guarded { try db.query("SELECT count FROM note_speakers WHERE note_id = ?", [.integer(Int64(id))]).first?.first?.int }
    }

    static func audioProblem(_ error: Error, path: String) -> String {
        let text = (error as? LocalizedError)?.errorDescription ?? "\(error)"
        // the audio layer's messages start with the path already
        return text.hasPrefix(path + ": ") ? String(text.dropFirst(path.count + 2)) : text
    }

    private func copyAtomically(from source: URL, to target: URL) throws {
        let temp = audioDirectory.appendingPathComponent(".incoming-" + UUID().uuidString)
        do {
            try FileManager.default.copyItem(at: source, to: temp)
            let handle = try FileHandle(forUpdating: temp)
            try handle.synchronize()  // on disk before the rename makes it visible
            try handle.close()
            try FileManager.default.moveItem(at: temp, to: target)
        } catch {
            try? FileManager.default.removeItem(at: temp)
            throw NotesError.storage(path: directory.path, problem: "cannot copy \(source.path) in (\(Self.reason(error))); nothing was stored")
        }
    }

    private func insertTags(_ tags: [String], note id: Int) throws {
        for tag in tags.map({ $0.trimmingCharacters(in: .whitespaces) }) where !tag.isEmpty {
            try db.query("INSERT OR IGNORE INTO tags (note_id, tag) VALUES (?, ?)", [.integer(Int64(id)), .text(tag)])
        }
    }

    // MARK: reading

    static let noteColumns = "id, created, source_name, audio_file, duration, title, title_by, summary, actions, transcript, segments, language_model"

    /// Notes, newest first, optionally only those created since a date, carrying a tag, or in which a speaker
    /// (an enrolled name or `SPEAKER_nn`, in either Unicode form) said something.
    public func list(since: Date? = nil, tag: String? = nil, speaker: String? = nil, limit: Int? = nil) throws -> [Note] {
        try guarded {
            var sql = "SELECT \(Self.noteColumns) FROM notes WHERE 1"
            var values: [SQLValue] = []
            if let since { sql += " AND created >= ?"; values.append(.real(since.timeIntervalSince1970)) }
            if let tag { sql += " AND id IN (SELECT note_id FROM tags WHERE tag = ?)"; values.append(.text(tag)) }
            if let speaker {
                // the segments are stored as JSON: the speaker's field exactly as JSONEncoder writes it, with LIKE's
                // wildcards escaped ('_' is common in names: SPEAKER_01)
                let field = "\"speaker\":" + String(decoding: try JSONEncoder().encode(speaker.precomposedStringWithCanonicalMapping), as: UTF8.self)
                let pattern = field.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "%", with: "\\%")
                    .replacingOccurrences(of: "_", with: "\\_")
                sql += " AND segments LIKE ? ESCAPE '\\'"
                values.append(.text("%\(pattern)%"))
            }
            do {
                return try notes(from: db.query(sql + " ORDER BY created DESC, id DESC" + (limit.map { " LIMIT \($0)" } ?? ""), values))
            } catch let error as SQLiteDatabase.Failure where damage != nil && error.isCorrupt {
                // a damaged page stops a scan: past it, each note is read on its own, and those on the page are left out
                let readable = readableRows(sql, values).sorted { ($0[1].double ?? 0, $0[0].int ?? 0) > ($1[1].double ?? 0, $1[0].int ?? 0) }
                return readable.prefix(limit ?? readable.count).compactMap { row in try? notes(from: [row]).first }
            }
        }
    }

    /// The rows `sql` (a query of `noteColumns` with a WHERE clause) gives, read one id at a time so that a damaged
    /// page loses only the rows on it: for a store opened read-only because of damage.
    func readableRows(_ sql: String, _ values: [SQLValue]) -> [[SQLValue]] {
        let largest = (try? db.query("SELECT max(id) FROM notes").first?.first?.int).flatMap { $0 } ?? 0
        guard largest > 0 else { return [] }
        return (1...largest).compactMap { id in
            (try? db.query(sql + " AND id = ?", values + [.integer(Int64(id))]))?.first
        }
    }

    public func note(_ id: Int) throws -> Note {
        try guarded {
            guard let note = try notes(from: db.query("SELECT \(Self.noteColumns) FROM notes WHERE id = ?", [.integer(Int64(id))])).first else {
                throw NotesError.unknownNote(id)
            }
            return note
        }
    }

    public var count: Int { (try? db.query("SELECT count(*) FROM notes").first?.first?.int).flatMap { $0 } ?? 0 }

    /// Notes from rows of `noteColumns`, with their tags and stages read in one query each for all of
    /// them: with per-note queries (and a date formatter per line) `notes list` of 10,000 notes took 2.1 s,
    /// now 0.29 s.
    private func notes(from rows: [[SQLValue]]) throws -> [Note] {
        guard !rows.isEmpty else { return [] }
        let ids = rows.compactMap { $0[0].int }
        let inList = ids.map(String.init).joined(separator: ",")  // integers from the database itself
        var tags: [Int: [String]] = [:], stages: [Int: [StageStatus]] = [:]
        for r in try db.query("SELECT note_id, tag FROM tags WHERE note_id IN (\(inList)) ORDER BY note_id, tag") {
            if let id = r[0].int, let tag = r[1].string { tags[id, default: []].append(tag) }
        }
        var templates: [Int: String] = [:]
        do {
            for r in try db.query("SELECT note_id, name FROM note_templates WHERE note_id IN (\(inList))") {
                if let id = r[0].int, let name = r[1].string { templates[id] = name }
            }
        } catch let error as SQLiteDatabase.Failure where damage != nil && error.isCorrupt {
            // a damaged store still shows its notes: those whose template is lost read as the default's
        }
        for r in try db.query("""
            SELECT note_id, stage, state, attempts, completions, error FROM stages WHERE note_id IN (\(inList))
            ORDER BY note_id, position
            """) {
            guard let id = r[0].int, let stage = NoteStage(rawValue: r[1].string ?? ""),
                  let state = StageStatus.State(rawValue: r[2].string ?? "") else { continue }
            stages[id, default: []].append(StageStatus(stage: stage, state: state, attempts: r[3].int ?? 0,
                                                       completions: r[4].int ?? 0, error: r[5].string))
        }
        let decoder = JSONDecoder()
        return rows.map { row in
            let id = row[0].int ?? 0
            let actions = (try? decoder.decode([ActionItem].self, from: Data((row[8].string ?? "[]").utf8))) ?? []
            let segments = (try? decoder.decode([TranscriptSegment].self, from: Data((row[10].string ?? "[]").utf8))) ?? []
            return Note(id: id, created: Date(timeIntervalSince1970: row[1].double ?? 0), sourceName: row[2].string ?? "",
                        audioPath: audioDirectory.appendingPathComponent(row[3].string ?? "").path, duration: row[4].double ?? 0,
                        title: row[5].string ?? "", titleBy: row[6].string ?? "none", summary: row[7].string ?? "", actions: actions,
                        transcript: row[9].string ?? "", segments: segments, languageModel: row[11].string ?? "",
                        tags: tags[id] ?? [], stages: stages[id] ?? [], template: templates[id] ?? SummaryTemplate.defaultName)
        }
    }

    /// The baseline the full-text index is measured against (bench/notes.py): a plain scan with LIKE,
    /// every word required somewhere in title, summary or transcript (ASCII case only, no accents).
    public func likeScan(_ query: String, limit: Int) throws -> [Int] {
        let words = query.split(separator: " ").map(String.init)
        guard !words.isEmpty else { throw NotesError.emptyQuery }
        let condition = words.map { _ in "(title || ' ' || summary || ' ' || transcript) LIKE ?" }.joined(separator: " AND ")
        return try guarded {
            try db.query("SELECT id FROM notes WHERE \(condition) ORDER BY created DESC LIMIT \(limit)", words.map { .text("%\($0)%") })
                .compactMap { $0[0].int }
        }
    }

    // MARK: changing

    /// Sets a title by hand (the pipeline then leaves it alone) and/or adds and removes tags.
    public func edit(_ id: Int, title: String? = nil, addTags: [String] = [], removeTags: [String] = []) throws {
        try guarded {
            try db.transaction {
                guard try !db.query("SELECT 1 FROM notes WHERE id = ?", [.integer(Int64(id))]).isEmpty else { throw NotesError.unknownNote(id) }
                if let title {
                    try db.query("UPDATE notes SET title = ?, title_by = 'user' WHERE id = ?", [.text(title), .integer(Int64(id))])
                }
                try insertTags(addTags, note: id)
                for tag in removeTags {
                    try db.query("DELETE FROM tags WHERE note_id = ? AND tag = ?", [.integer(Int64(id)), .text(tag)])
                }
            }
        }
    }

    /// `name` as a note names a voice (trimmed, composed), or why it cannot: a name by `NameRule`, not starting with
    /// `SPEAKER_` (the numbered voices nobody named).
    static func speakerName(_ name: String) throws -> String {
        guard case let .success(checked) = NameRule.checked(name), Note.isName(checked) else {
            throw NotesError.badSpeakerName(name.trimmingCharacters(in: .whitespacesAndNewlines).precomposedStringWithCanonicalMapping)
        }
        return checked
    }

    /// Gives the voice labelled `speaker` in a note (`SPEAKER_02`, or a name already given) the name `name`, in
    /// every segment and word; a name another voice of the note already has merges the two. The summary is then
    /// written again (it names who said what) and the note re-embedded, unless those stages are running. A voice
    /// linked to a person (see `people`) names that person, so every note they are heard in carries the name (a
    /// note of one voice, whose segments carry no label, is named through `renamePerson`). Returns the segments
    /// relabelled in this note.
    @discardableResult
    public func renameSpeaker(_ id: Int, from speaker: String, to name: String) throws -> Int {
        let name = try Self.speakerName(name)
        let speaker = speaker.precomposedStringWithCanonicalMapping
        let note = try note(id)
        guard note.isTranscribed else { throw NotesError.notTranscribed(id) }
        guard note.speakers.contains(speaker) else {
            throw NotesError.unknownSpeaker(note: id, speaker: speaker, speakers: note.speakers)
        }
        // the voice is a person's: naming it names them in every note they are heard in
        if let person = try person(inNote: id, label: speaker) {
            try renamePerson(person, to: name)
            return note.segments.filter { $0.speaker == speaker }.count
        }
        // a note transcribed before voices were linked to people: this note alone
        return try guarded { try db.transaction { try relabelSegments(of: id, from: speaker, to: name) } }
    }

    /// Removes a note, its stages and tags, then its recording.
    public func delete(_ id: Int) throws {
        let note = try note(id)
        try guarded {
            try db.transaction {
                try db.query("DELETE FROM notes WHERE id = ?", [.integer(Int64(id))])
            }
        }
        try? FileManager.default.removeItem(atPath: note.audioPath)
    }

    /// Queues `stage` and every later stage of a note again, leaving any that is running (inside a transaction).
    func requeue(_ id: Int, from stage: NoteStage) throws {
        try db.query("UPDATE stages SET state = 'pending', error = NULL, interrupted = 0 WHERE note_id = ? AND position >= ? AND state != 'running'",
                     [.integer(Int64(id)), .integer(Int64(stage.position))])
    }

    /// Puts a note's failed stages back in the queue, or with `from`, that stage and every later one
    /// (to rewrite a summary with another model, say); returns how many stages were queued.
    @discardableResult
    public func retry(_ id: Int, from stage: NoteStage? = nil) throws -> Int {
        _ = try note(id)
        return try guarded {
            try db.transaction {
                if let stage {
                    try requeue(id, from: stage)
                } else {
                    try db.query("UPDATE stages SET state = 'pending', error = NULL, interrupted = 0 WHERE note_id = ? AND state = 'failed'", [.integer(Int64(id))])
                }
                return db.changes
            }
        }
    }
}
