import EarshotCore
import Foundation

/// What became of one file of an import.
public struct ImportedFile: Sendable, Codable, Equatable {
    public enum Outcome: String, Sendable, Codable {
        /// Saved as a new note (`note`), dated when it was recorded.
        case imported
        /// The same audio as note `note`, already in the library: nothing was stored.
        case duplicate
        /// Not imported: `error` says why.
        case failed
    }

    /// The file as it was named to the import (an upload's own name).
    public var file: String
    public var outcome: Outcome
    /// The new note, or the note it is the same audio as.
    public var note: Int?
    /// When it was recorded, and where that was read from.
    public var recorded: Date?
    public var dateFrom: RecordingDate.Source?
    public var error: String?

    enum CodingKeys: String, CodingKey {
        case file, outcome, note, recorded, error
        case dateFrom = "date_from"
    }
}

/// Importing recordings made elsewhere (phone memos, meeting recordings): each becomes a note dated when it was
/// recorded, the same audio already in the library is skipped, and a file that cannot be read is reported while the
/// rest go in. Decoding and fingerprinting run off the library's executor, so reads and edits do not wait for them.
extension NotesLibrary {
    /// The recordings `paths` name: files as given, folders searched at every depth for audio files (by extension;
    /// hidden entries skipped). A folder without any is an error naming it, as is a path that does not exist.
    public nonisolated static func recordings(in paths: [String]) -> [(file: String, error: String?)] {
        paths.flatMap { path -> [(file: String, error: String?)] in
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else { return [(path, "\(path): no such file or folder")] }
            guard isFolder.boolValue else { return [(path, nil)] }
            let found = AudioFiles.list(under: path)
            return found.isEmpty ? [(path, "\(path): no recordings in this folder (looked for " + AudioFiles.extensions.sorted().joined(separator: ", ") + ")")]
                : found.map { ($0, nil) }
        }
    }

    /// Imports `paths` (files and folders, see `recordings(in:)`) one by one; `onFile` hears each outcome as it is
    /// known, with its position and the count (for progress). Never throws: every problem is one file's outcome.
    public nonisolated func importRecordings(_ paths: [String], tags: [String] = [], speakers: Int? = nil, template: String? = nil,
                                             onFile: (@Sendable (_ done: Int, _ total: Int, ImportedFile) -> Void)? = nil) async -> [ImportedFile] {
        let files = Self.recordings(in: paths)
        var results: [ImportedFile] = []
        for (i, entry) in files.enumerated() {
            let result = if let error = entry.error { ImportedFile(file: entry.file, outcome: .failed, error: error) }
                else { await importRecording(entry.file, tags: tags, speakers: speakers, template: template) }
            results.append(result)
            onFile?(i + 1, files.count, result)
        }
        return results
    }

    /// Imports one recording at `path`, to be summarised with `template` (default: the memo). `name`: how it is named in the note and messages (an upload's own name for a
    /// temporary file). `modified`: the file's own time when `path` is a copy that lost it (an upload), used when the
    /// container does not say when it was recorded.
    public nonisolated func importRecording(_ path: String, name: String? = nil, modified: Date? = nil, tags: [String] = [],
                                            speakers: Int? = nil, template: String? = nil) async -> ImportedFile {
        let shown = name ?? path
        var result = ImportedFile(file: shown, outcome: .failed)
        do {
            guard FileManager.default.isReadableFile(atPath: path) else { throw NotesError.notAudio(path: shown, problem: "cannot be read") }
            if let template { _ = try await self.template(named: template) }  // a wrong name decodes nothing and stores nothing
            var date = RecordingDate.of(path: path) ?? RecordingDate(date: Date(), source: .file)
            if date.source == .file, let modified { date.date = modified }
            let fingerprint: AudioFingerprint
            do { fingerprint = try AudioFingerprint(path: path) } catch {
                throw NotesError.notAudio(path: shown, problem: NotesStore.audioProblem(error, path: path))
            }
            if let same = try await sameAudio(as: fingerprint) {
                result.outcome = .duplicate
                result.note = same
                return result
            }
            let note = try await add(importing: path, name: name ?? URL(fileURLWithPath: path).lastPathComponent, fingerprint: fingerprint,
                                     recorded: date.date, tags: tags, speakers: speakers, template: template)
            result.outcome = note.isNew ? .imported : .duplicate
            result.note = note.id
            if note.isNew { (result.recorded, result.dateFrom) = (date.date, date.source) }
        } catch {
            result.error = (error as? LocalizedError)?.errorDescription ?? "\(error)"
        }
        return result
    }

    /// The note that is the same audio as `fingerprint`, if one is. Notes as long as it that have no fingerprint yet
    /// (added, not imported) are fingerprinted now, off the library's executor, and keep it.
    private nonisolated func sameAudio(as fingerprint: AudioFingerprint) async throws -> Int? {
        for candidate in try await notes(lastingAbout: fingerprint.duration) {
            var theirs = candidate.fingerprint
            // a stored recording that cannot be read (removed by hand) is no match, and a store that cannot keep the
            // fingerprint (read-only) makes it again next time: neither stops the import
            if theirs == nil, let made = try? AudioFingerprint(path: candidate.audioPath) {
                theirs = made
                try? await keep(made, of: candidate.id)
            }
            if let theirs, fingerprint.matches(theirs) { return candidate.id }
        }
        return nil
    }

    private func notes(lastingAbout seconds: Double) throws -> [NotesStore.SameLength] { try store.notes(lastingAbout: seconds) }

    private func keep(_ fingerprint: AudioFingerprint, of id: Int) throws { try store.storeFingerprint(fingerprint, of: id) }

    /// Adds the note and its fingerprint, unless a note with the same audio was stored meanwhile (two imports of one
    /// folder at once): then that note, not new.
    private func add(importing path: String, name: String, fingerprint: AudioFingerprint, recorded: Date, tags: [String],
                     speakers: Int?, template: String?) throws -> (id: Int, isNew: Bool) {
        if let same = try store.notes(lastingAbout: fingerprint.duration).first(where: { $0.fingerprint.map(fingerprint.matches) ?? false }) {
            return (same.id, false)
        }
        let id = try store.add(path: path, tags: tags, created: recorded, sourceName: name, speakers: speakers, duration: fingerprint.duration)
        try store.storeFingerprint(fingerprint, of: id)
        if let template { try store.setTemplate(of: id, to: template, rewrite: false) }
        return (id, true)
    }
}
