import EarshotCore
import EarshotSpeech
import Foundation

/// A correction of one segment of a note's transcript: the segment before and after it, kept so it can be undone.
public struct Correction: Sendable, Equatable, Codable {
    public var id: Int
    /// The segment's number in the note, from 1.
    public var segment: Int
    public var before: TranscriptSegment
    public var after: TranscriptSegment
    public var at: Date
}

/// Corrections of a transcript by hand: a segment's words or its speaker. The segment keeps its times; the note's
/// transcript, its word index and (once the embed stage runs again) its meaning follow the corrected words. Each
/// correction is kept with the segment as it was, and the last can be undone.
extension NotesStore {
    /// The longest a corrected segment may be.
    public static let maximumCorrectionCharacters = 2_000

    /// Replaces segment `segment` (from 1) of note `id`: its text with `text`, its speaker with `speaker` (a name, or a
    /// label the note already has); nil leaves either as it is. The words keep their times when there are as many as
    /// before, else the new words share the segment's time evenly (a click still lands near them). Meaning search's
    /// embedding is queued again, and with `rewriteSummary` the summary, title and action items too. Returns the
    /// correction kept.
    @discardableResult
    public func correct(_ id: Int, segment: Int, text: String? = nil, speaker: String? = nil, rewriteSummary: Bool = false) throws -> Correction {
        let text = try text.map(Self.correctedText)
        let note = try note(id)
        guard note.isTranscribed else { throw NotesError.notTranscribed(id) }
        guard note.segments.indices.contains(segment - 1) else {
            throw NotesError.unknownSegment(note: id, segment: segment, count: note.segments.count)
        }
        let speaker = try speaker.map { label -> String in
            let label = label.precomposedStringWithCanonicalMapping.trimmingCharacters(in: .whitespacesAndNewlines)
            return note.speakers.contains(label) ? label : try Self.speakerName(label)
        }
        guard text != nil || speaker != nil else { throw NotesError.badCorrection("give the segment's corrected text or speaker") }
        let before = note.segments[segment - 1]
        var after = before
        if let text {
            after.text = text
            after.words = before.words.map { Self.retimed($0, to: text, start: before.start, end: before.end) }
            after.tokens = nil
        }
        if let speaker {
            after.speaker = speaker
            after.words = after.words?.map { var w = $0; w.speaker = speaker; return w }
        }
        var segments = note.segments
        segments[segment - 1] = after
        return try guarded {
            try db.transaction {
                try storeSegments(segments, of: id)
                try db.query("INSERT INTO corrections (note_id, segment, before, after, at) VALUES (?, ?, ?, ?, ?)",
                             [.integer(Int64(id)), .integer(Int64(segment)), .text(try Self.json(before)), .text(try Self.json(after)),
                              .real(Date().timeIntervalSince1970)])
                let kept = Correction(id: Int(db.lastInsertedRow), segment: segment, before: before, after: after, at: Date())
                try requeue(id, from: rewriteSummary ? .summarise : .embed)
                return kept
            }
        }
    }

    /// Undoes note `id`'s last correction: its segment as it was before. Returns the correction undone, or nil when
    /// the note has none. A transcript made again since (the transcribe stage run again) has no corrections to undo.
    @discardableResult
    public func undoCorrection(_ id: Int) throws -> Correction? {
        try guarded {
            try db.transaction {
                let note = try note(id)
                guard let last = try corrections(of: id).last else { return nil }
                guard note.segments.indices.contains(last.segment - 1), note.segments[last.segment - 1] == last.after else {
                    throw NotesError.badCorrection("segment \(last.segment) of note \(id) was changed since it was corrected; nothing was undone")
                }
                var segments = note.segments
                segments[last.segment - 1] = last.before
                try storeSegments(segments, of: id)
                try db.query("DELETE FROM corrections WHERE id = ?", [.integer(Int64(last.id))])
                try requeue(id, from: .embed)
                return last
            }
        }
    }

    /// Note `id`'s corrections, oldest first.
    public func corrections(of id: Int) throws -> [Correction] {
        _ = try note(id)
        return try guarded {
            try db.query("SELECT id, segment, before, after, at FROM corrections WHERE note_id = ? ORDER BY id", [.integer(Int64(id))])
                .compactMap { row in
                    guard let key = row[0].int, let segment = row[1].int, let before = row[2].string, let after = row[3].string else { return nil }
                    let decoder = JSONDecoder()
                    return Correction(id: key, segment: segment,
                                      before: try decoder.decode(TranscriptSegment.self, from: Data(before.utf8)),
                                      after: try decoder.decode(TranscriptSegment.self, from: Data(after.utf8)),
                                      at: Date(timeIntervalSince1970: row[4].double ?? 0))
                }
        }
    }

    /// Inside a transaction: note `id` has no corrections to undo any more — its transcript was made again, or what a
    /// forgotten person said was redacted (the corrections hold the words as they were).
    func dropCorrections(of id: Int) throws {
        try db.query("DELETE FROM corrections WHERE note_id = ?", [.integer(Int64(id))])
    }

    /// Inside a transaction: the note's segments, and its transcript (the segments' words, as `Transcript.text` joins
    /// them) with them.
    private func storeSegments(_ segments: [TranscriptSegment], of id: Int) throws {
        let transcript = segments.map(\.text).joined(separator: " ")
        try db.query("UPDATE notes SET segments = ?, transcript = ? WHERE id = ?",
                     [.text(try Self.json(segments)), .text(transcript), .integer(Int64(id))])
    }

    private static func json<T: Encodable>(_ value: T) throws -> String {
        String(decoding: try JSONEncoder().encode(value), as: UTF8.self)
    }

    /// A correction's text: trimmed, one line, printable, not empty, at most `maximumCorrectionCharacters`.
    static func correctedText(_ text: String) throws -> String {
        let text = text.precomposedStringWithCanonicalMapping.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !text.isEmpty else { throw NotesError.badCorrection("a corrected segment needs some words (to remove what a voice said, forget them with --redact)") }
        guard text.count <= maximumCorrectionCharacters else {
            throw NotesError.badCorrection("a corrected segment has at most \(maximumCorrectionCharacters) characters")
        }
        guard !text.unicodeScalars.contains(where: { CharacterSet.controlCharacters.contains($0) }) else {
            throw NotesError.badCorrection("a corrected segment is one line of printable text")
        }
        return text
    }

    /// The words of `text` timed within a segment: the old words' times, one to one, when there are as many; else the
    /// segment's span shared evenly.
    static func retimed(_ old: [TranscriptWord], to text: String, start: Double, end: Double) -> [TranscriptWord] {
        let words = text.split(whereSeparator: \.isWhitespace).map { " " + $0 }
        if words.count == old.count {
            return zip(old, words).map { var w = $0; w.word = $1; w.probability = 1; return w }
        }
        let step = max(0, end - start) / Double(max(1, words.count))
        return words.enumerated().map { i, word in
            var w = TranscriptWord(word: word, start: ((start + Double(i) * step) * 100).rounded() / 100,
                                   end: ((start + Double(i + 1) * step) * 100).rounded() / 100, probability: 1)
            w.speaker = old.first?.speaker
            return w
        }
    }
}
