import EarshotCore
import Foundation

/// The audio fingerprints imports compare with, so the same recording is not imported twice.
extension NotesStore {
    /// A note as long as a recording being imported: the only notes it could be the same audio as.
    struct SameLength: Sendable {
        var id: Int
        var audioPath: String
        var fingerprint: AudioFingerprint?
        var duration: Double
    }

    /// The notes whose recordings are within a fingerprint's tolerance of `seconds` long, with their fingerprints
    /// where one is stored.
    func notes(lastingAbout seconds: Double) throws -> [SameLength] {
        // the tolerance goes by the longer of the two: a note up to 1/0.99 as long can still match
        let slack = AudioFingerprint.lengthTolerance(seconds / 0.99)
        return try guarded {
            try db.query("""
                SELECT notes.id, notes.audio_file, notes.duration, fingerprints.moments FROM notes
                LEFT JOIN fingerprints ON fingerprints.note_id = notes.id WHERE notes.duration BETWEEN ? AND ? ORDER BY notes.id
                """, [.real(seconds - slack), .real(seconds + slack)]).compactMap { row in
                guard let id = row[0].int, let file = row[1].string, let duration = row[2].double else { return nil }
                return SameLength(id: id, audioPath: audioDirectory.appendingPathComponent(file).path,
                                  fingerprint: row[3].data.map { AudioFingerprint(data: $0, duration: duration) }, duration: duration)
            }
        }
    }

    /// Keeps note `id`'s fingerprint (replacing one kept before).
    func storeFingerprint(_ fingerprint: AudioFingerprint, of id: Int) throws {
        try requireWritable()
        try guarded {
            try db.query("INSERT OR REPLACE INTO fingerprints (note_id, moments) SELECT id, ? FROM notes WHERE id = ?",
                         [.blob(fingerprint.data), .integer(Int64(id))])
        }
    }
}
