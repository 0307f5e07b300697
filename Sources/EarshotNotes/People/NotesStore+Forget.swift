import EarshotCore
import EarshotSpeech
import Foundation

/// Forgetting a person: their voiceprints and name leave the store, and with `redact` what they said too.
extension NotesStore {
    /// What forgetting someone changed.
    public struct Forgotten: Sendable, Equatable, Codable {
        /// The name they had, if any (a voice profile of that name is theirs too: `NotesLibrary.forgetPerson` removes it).
        public var name: String?
        /// The notes they were heard in, whose labels (and with `redact`, transcripts and recordings) changed.
        public var notes: [Int]
        /// Seconds of their speech silenced in the recordings (0 without `redact`).
        public var silencedSeconds: Double

        enum CodingKeys: String, CodingKey { case name, notes, silencedSeconds = "silenced_seconds" }
    }

    /// The text that stands where a forgotten person spoke.
    public static let removedText = "[removed]"

    /// Forgets person `id`: their voiceprints and name are deleted, and the notes they were heard in no longer say
    /// their name (their voice there is a numbered voice again, their action items lose their owner). With `redact`,
    /// what they said goes as well: each of their segments reads "[removed]" in the transcript, the search index and
    /// the exports; their speech is silenced in the stored recording (written again as 16 kHz WAV, atomically); the
    /// note's summary, action items and meaning-search embedding are cleared and queued to be made again from what
    /// is left. The database changes commit together; a recording is replaced only after they have.
    public func forgetPerson(_ id: Int, redact: Bool) throws -> Forgotten {
        let person = try person(id)
        let notes = try person.appearances.map { try note($0.note) }
        // the silenced recordings are written first, beside the originals; the notes point at them in the transaction
        // that redacts the text, and the originals are removed once it has committed (a failure removes the new ones)
        var written: [Int: (file: String, seconds: Double)] = [:]
        if redact {
            do {
                for (note, appearance) in zip(notes, person.appearances) {
                    written[note.id] = try silenced(Self.spans(of: appearance.label, in: note), of: note)
                }
            } catch {
                for file in written.values { try? FileManager.default.removeItem(at: audioDirectory.appendingPathComponent(file.file)) }
                throw error
            }
        }
        do {
            try guarded {
                try db.transaction {
                    for (note, appearance) in zip(notes, person.appearances) {
                        try unname(appearance.label, of: id, named: person.name, in: note, redacting: written[note.id]?.file)
                    }
                    try db.query("DELETE FROM voices WHERE person_id = ?", [.integer(Int64(id))])
                    try db.query("DELETE FROM people WHERE id = ?", [.integer(Int64(id))])
                }
            }
        } catch {
            for file in written.values { try? FileManager.default.removeItem(at: audioDirectory.appendingPathComponent(file.file)) }
            throw error
        }
        for note in notes where written[note.id] != nil { try? FileManager.default.removeItem(atPath: note.audioPath) }
        let seconds = written.values.map(\.seconds).reduce(0, +)
        return Forgotten(name: person.name, notes: person.notes, silencedSeconds: (seconds * 1000).rounded() / 1000)
    }

    /// Where the voice labelled `label` speaks in a note: its segments (all of them in a note of one voice, whose
    /// segments carry no label).
    static func spans(of label: String, in note: Note) -> [ClosedRange<Double>] {
        let unlabelled = !note.segments.contains { $0.speaker != nil }
        return note.segments.filter { unlabelled || $0.speaker == label }.map { $0.start...max($0.start, $0.end) }
    }

    /// Inside a transaction: the voice labelled `label` in `note` no longer names person `id` (`name`): a numbered voice
    /// again, its action items without an owner; with `redacting` (the silenced recording), its segments read
    /// "[removed]", the summary, items and embedding are cleared, and the note points at the new recording. The
    /// summary is queued to be written again. Returns the voice's label now (its segments carry none when it is the
    /// note's only voice).
    @discardableResult
    func unname(_ label: String, of id: Int, named name: String?, in note: Note, redacting recording: String?) throws -> String {
        let unlabelled = !note.segments.contains { $0.speaker != nil }
        // the note's only voice: unlabelled again, as a note of one voice nobody named is stored
        let only = unlabelled || Set(note.segments.compactMap(\.speaker)) == [label]
        let renumbered = unusedLabel(in: note, replacing: label, isNamed: name != nil)
        let numbered = only ? nil : renumbered
        var segments = note.segments
        for i in segments.indices where unlabelled || segments[i].speaker == label {
            if recording != nil {
                segments[i].text = Self.removedText
                segments[i].words = nil
            }
            segments[i].speaker = numbered
            segments[i].words = segments[i].words?.map { word in
                var w = word
                if w.speaker == label { w.speaker = numbered }
                return w
            }
        }
        let encoded = String(decoding: try JSONEncoder().encode(segments), as: UTF8.self)
        if let recording {
            let transcript = segments.map(\.text).joined(separator: " ")
            try db.query("""
                UPDATE notes SET segments = ?, transcript = ?, summary = '', actions = '[]', embedding = NULL, audio_file = ?,
                title = CASE WHEN title_by = 'user' THEN title ELSE ? END,
                title_by = CASE WHEN title_by = 'user' THEN title_by ELSE 'extract' END WHERE id = ?
                """, [.text(encoded), .text(transcript), .text(recording), .text(Titles.keywords(from: transcript)), .integer(Int64(note.id))])
            // the corrections kept for undoing hold the words as they were: what they said goes from there too
            try dropCorrections(of: note.id)
            try db.query("DELETE FROM fingerprints WHERE note_id = ?", [.integer(Int64(note.id))])  // the audio changed
        } else {
            var actions = note.actions
            for i in actions.indices where actions[i].person == id || actions[i].owner == label {
                actions[i].owner = nil
                actions[i].person = nil
            }
            try db.query("UPDATE notes SET segments = ?, actions = ? WHERE id = ?",
                         [.text(encoded), .text(String(decoding: try JSONEncoder().encode(actions), as: UTF8.self)), .integer(Int64(note.id))])
        }
        try requeue(note.id, from: .summarise)
        return renumbered
    }

    /// The label a forgotten person's voice takes in a note: their own if they were never named, else the first
    /// `SPEAKER_nn` the note does not use.
    private func unusedLabel(in note: Note, replacing label: String, isNamed: Bool) -> String {
        guard isNamed || !Note.isName(label) else { return label }
        let used = Set(note.speakers)
        return (1...).lazy.map { String(format: "SPEAKER_%02d", $0) }.first { !used.contains($0) }!
    }

    /// The note's recording with `spans` silent, written as a new 16 kHz WAV in the audio folder (fsynced, under a
    /// name no note uses yet). Returns its file name and the seconds silenced.
    private func silenced(_ spans: [ClosedRange<Double>], of note: Note) throws -> (file: String, seconds: Double) {
        var audio = try AudioFileLoader(sampleRate: 16_000).load(path: note.audioPath)
        var count = 0
        for span in spans {
            let from = max(0, Int(span.lowerBound * 16_000)), to = min(audio.samples.count, Int((span.upperBound * 16_000).rounded(.up)))
            guard from < to else { continue }
            for i in from..<to { audio.samples[i] = 0 }
            count += to - from
        }
        let stored = UUID().uuidString.lowercased() + ".wav"
        let temp = audioDirectory.appendingPathComponent(".incoming-" + UUID().uuidString)
        do {
            try WAVWriter.pcm16(audio.samples, sampleRate: 16_000).write(to: temp)
            let handle = try FileHandle(forUpdating: temp)
            try handle.synchronize()  // on disk before the note points at it
            try handle.close()
            try FileManager.default.moveItem(at: temp, to: audioDirectory.appendingPathComponent(stored))
        } catch {
            try? FileManager.default.removeItem(at: temp)
            throw NotesError.storage(path: note.audioPath, problem: "cannot write the silenced recording (\(Self.reason(error))); nothing was changed")
        }
        return (stored, Double(count) / 16_000)
    }
}
