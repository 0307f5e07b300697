import EarshotSpeech
import EarshotVoice
import Foundation

/// People in the notes store: the voices of each note linked to the person they are (see `VoiceLinking`), and
/// names given to a person carried into every note of theirs.
extension NotesStore {
    // MARK: linking a note's voices

    /// Replaces note `id`'s voices with `speakers` (a diarization of it), each linked to a person: the one of that name
    /// for a voice an enrolled profile named, the person whose voice it clearly is, or a new unnamed person. Returns
    /// the label each voice's segments should carry where that differs from its diarization label (a named person's
    /// name). Runs inside the caller's transaction, which commits the note's transcript with it.
    func linkVoices(of id: Int, speakers: [DiarizedSpeaker]) throws -> [String: String] {
        try db.query("DELETE FROM voices WHERE note_id = ?", [.integer(Int64(id))])
        let known = try knownPeople()
        let heard = speakers.map {
            VoiceLinking.Heard(label: $0.label, seconds: $0.seconds, voiceprint: $0.voiceprint, enrolled: $0.enrolled)
        }
        var labels: [String: String] = [:]
        for (voice, link) in zip(speakers, VoiceLinking.link(heard, to: known)) {
            let person: Int
            var label = voice.label
            if let link {
                person = known[link].person
                label = known[link].name ?? label
            } else {
                person = try newPerson(named: voice.enrolled ? voice.label : nil)
            }
            if label != voice.label { labels[voice.label] = label }
            try db.query("INSERT INTO voices (note_id, label, person_id, seconds, voiceprint) VALUES (?, ?, ?, ?, ?)",
                         [.integer(Int64(id)), .text(label), .integer(Int64(person)), .real(voice.seconds),
                          voice.voiceprint.map { .blob(SemanticIndex.blob($0)) } ?? .null])
        }
        return labels
    }

    /// Everyone a new voice may be: named people (a profile's name finds them) and the voiceprints of voices long
    /// enough to compare.
    private func knownPeople() throws -> [VoiceLinking.Known] {
        var people: [Int: VoiceLinking.Known] = [:]
        for row in try db.query("""
            SELECT p.id, p.name, v.voiceprint, v.seconds FROM people p LEFT JOIN voices v ON v.person_id = p.id
            WHERE p.name IS NOT NULL OR v.note_id IS NOT NULL ORDER BY p.id
            """) {
            guard let id = row[0].int else { continue }
            var person = people[id] ?? VoiceLinking.Known(person: id, name: row[1].string, voiceprints: [])
            if let print = row[2].data, (row[3].double ?? 0) >= VoiceLinking.minimumSeconds {
                person.voiceprints.append(SemanticIndex.vector(print))
            }
            people[id] = person
        }
        return people.keys.sorted().map { people[$0]! }
    }

    /// Everyone named, with the voiceprints of their voices long enough to compare: who a diarization outside the
    /// notes (a transcription with speakers, the API's diarized_json, a batch) may name a voice as.
    public func namedVoices() throws -> [Diarizer.NamedVoice] {
        try guarded {
            try knownPeople().compactMap { known in
                known.name.flatMap { known.voiceprints.isEmpty ? nil : Diarizer.NamedVoice(name: $0, voiceprints: known.voiceprints) }
            }
        }
    }

    private func newPerson(named name: String?) throws -> Int {
        try db.query("INSERT INTO people (name, created) VALUES (?, ?)",
                     [name.map { .text($0) } ?? .null, .real(Date().timeIntervalSince1970)])
        return Int(db.lastInsertedRow)
    }

    // MARK: reading

    /// Everyone heard in a note, and everyone named even if no note of theirs is left; the most notes first.
    public func people() throws -> [Person] {
        try guarded { try readPeople(where: "1", []) }
            .sorted { ($0.notes.count, $0.seconds, -$0.id) > ($1.notes.count, $1.seconds, -$1.id) }
    }

    public func person(_ id: Int) throws -> Person {
        guard let person = try guarded({ try readPeople(where: "p.id = ?", [.integer(Int64(id))]) }).first else {
            throw NotesError.unknownPerson(id)
        }
        return person
    }

    /// The person of that name (in either Unicode form), if anyone has it.
    public func person(named name: String) throws -> Person? {
        try guarded { try readPeople(where: "p.name = ?", [.text(name.precomposedStringWithCanonicalMapping)]) }.first
    }

    /// The person whose voice note `id` labels `label`, if its voices were linked.
    public func person(inNote id: Int, label: String) throws -> Int? {
        try guarded {
            try db.query("SELECT person_id FROM voices WHERE note_id = ? AND label = ?",
                         [.integer(Int64(id)), .text(label.precomposedStringWithCanonicalMapping)]).first?.first?.int
        }
    }

    private func readPeople(where condition: String, _ values: [SQLValue]) throws -> [Person] {
        var people: [Int: Person] = [:]
        for row in try db.query("""
            SELECT p.id, p.name, v.note_id, v.label, v.seconds, n.created FROM people p
            LEFT JOIN voices v ON v.person_id = p.id LEFT JOIN notes n ON n.id = v.note_id
            WHERE (p.name IS NOT NULL OR v.note_id IS NOT NULL) AND \(condition) ORDER BY p.id, n.created, v.note_id
            """, values) {
            guard let id = row[0].int else { continue }
            var person = people[id] ?? Person(id: id, name: row[1].string, notes: [], seconds: 0, lastHeard: nil, appearances: [])
            if let note = row[2].int, let label = row[3].string {
                let seconds = row[4].double ?? 0
                person.appearances.append(.init(note: note, label: label, seconds: seconds))
                if !person.notes.contains(note) { person.notes.append(note) }
                person.seconds = ((person.seconds + seconds) * 1000).rounded() / 1000
                person.lastHeard = row[5].double.map { Date(timeIntervalSince1970: $0) }
            }
            people[id] = person
        }
        return people.keys.sorted().map { people[$0]! }
    }

    // MARK: naming

    /// Names a person in every note they are heard in; returns those notes. A name another person already has says the
    /// two are one: this person joins them (as `merge` does). Each note's summary is queued to be written again.
    @discardableResult
    public func renamePerson(_ id: Int, to name: String) throws -> [Int] {
        let name = try Self.speakerName(name)
        return try guarded {
            try db.transaction {
                _ = try person(id)
                if let other = try db.query("SELECT id FROM people WHERE name = ?", [.text(name)]).first?.first?.int, other != id {
                    return try join(id, into: other)
                }
                try db.query("UPDATE people SET name = ? WHERE id = ?", [.text(name), .integer(Int64(id))])
                return try relabelVoices(of: id, to: name)
            }
        }
    }

    /// Makes `other` one person with `id`: their voices become `id`'s, under `id`'s name (or `other`'s, when `id` has
    /// none). Returns the notes whose labels changed.
    @discardableResult
    public func mergePeople(_ id: Int, with other: Int) throws -> [Int] {
        guard id != other else { throw NotesError.badPeople("a person cannot be merged with themselves") }
        return try guarded { try db.transaction { try join(other, into: id) } }
    }

    /// Says the voice of person `id` in note `note` is someone else: it becomes a new unnamed person (its voiceprint
    /// goes with it, so it no longer speaks for `id` when later notes are linked). When `id` is named, the voice is a
    /// numbered voice again in that note, its action items lose their owner and the summary is queued to be written
    /// again. Returns the new person's id.
    public func splitPerson(_ id: Int, note: Int) throws -> Int {
        try guarded {
            try db.transaction {
                let person = try person(id)
                guard let voice = person.appearances.first(where: { $0.note == note }) else {
                    throw NotesError.badPeople("\(person.displayName) is not heard in note \(note) (they are in \(person.notes.map(String.init).joined(separator: ", ")))")
                }
                guard person.name != nil || person.appearances.count > 1 else {
                    throw NotesError.badPeople("\(person.displayName) is heard only in note \(note): there is no one to split them from")
                }
                let label = person.name == nil ? voice.label
                    : try unname(voice.label, of: id, named: person.name, in: try self.note(note), redacting: nil)
                let other = try newPerson(named: nil)
                try db.query("UPDATE voices SET person_id = ?, label = ? WHERE note_id = ? AND label = ?",
                             [.integer(Int64(other)), .text(label), .integer(Int64(note)), .text(voice.label)])
                return other
            }
        }
    }

    /// Inside a transaction: `from`'s voices become `into`'s; the person left with no voices is removed.
    private func join(_ from: Int, into: Int) throws -> [Int] {
        let source = try person(from), target = try person(into)
        try db.query("UPDATE voices SET person_id = ? WHERE person_id = ?", [.integer(Int64(into)), .integer(Int64(from))])
        try db.query("DELETE FROM people WHERE id = ?", [.integer(Int64(from))])
        guard let name = target.name ?? source.name else { return [] }
        if target.name == nil { try db.query("UPDATE people SET name = ? WHERE id = ?", [.text(name), .integer(Int64(into))]) }
        return try relabelVoices(of: into, to: name)
    }

    /// Inside a transaction: every voice of `person` labelled `name` in its note (segments, words, the voice's row);
    /// returns the notes changed, each with its summary queued again.
    private func relabelVoices(of person: Int, to name: String) throws -> [Int] {
        var changed: [Int] = []
        for row in try db.query("SELECT note_id, label, seconds FROM voices WHERE person_id = ? ORDER BY note_id", [.integer(Int64(person))]) {
            guard let note = row[0].int, let label = row[1].string, label != name else { continue }
            let key: [SQLValue] = [.integer(Int64(note)), .text(label)]
            if try !db.query("SELECT 1 FROM voices WHERE note_id = ? AND label = ?", [.integer(Int64(note)), .text(name)]).isEmpty {
                // the note already has a voice of that name (two of its voices are one person): one voice, their times added
                try db.query("UPDATE voices SET seconds = seconds + ? WHERE note_id = ? AND label = ?",
                             [.real(row[2].double ?? 0), .integer(Int64(note)), .text(name)])
                try db.query("DELETE FROM voices WHERE note_id = ? AND label = ?", key)
            } else {
                try db.query("UPDATE voices SET label = ? WHERE note_id = ? AND label = ?", [.text(name)] + key)
            }
            try relabelSegments(of: note, from: label, to: name)
            if !changed.contains(note) { changed.append(note) }
        }
        return changed
    }

    /// Inside a transaction: the note's segments and words labelled `from` now say `name`; in a note of one voice, whose
    /// segments carry no label, all of them do. Its summary is queued to be written again with the name. Returns how
    /// many segments changed.
    @discardableResult
    func relabelSegments(of id: Int, from label: String, to name: String) throws -> Int {
        let note = try note(id)
        let unlabelled = !note.segments.contains { $0.speaker != nil }
        var changed = 0
        let segments = note.segments.map { segment -> TranscriptSegment in
            var s = segment
            if s.speaker == label || (unlabelled && s.speaker == nil) { s.speaker = name; changed += 1 }
            s.words = s.words?.map { word in
                var w = word
                if w.speaker == label || (unlabelled && w.speaker == nil) { w.speaker = name }
                return w
            }
            return s
        }
        guard changed > 0 else { return 0 }
        try relabelOwners(of: id, from: label, to: name)
        try db.query("UPDATE notes SET segments = ? WHERE id = ?",
                     [.text(String(decoding: try JSONEncoder().encode(segments), as: UTF8.self)), .integer(Int64(id))])
        try requeue(id, from: .summarise)
        return changed
    }
}
