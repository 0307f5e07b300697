import EarshotCore
import Foundation

/// What `NotesStore.repair` did.
public struct NotesRepair: Sendable, Codable, Equatable {
    /// Notes made again from stored recordings (their stages queued: transcripts, titles and summaries are redone).
    public var recovered: Int
    /// Stored files that are not readable audio, left where they are.
    public var skipped: [String]
    /// Where the damaged database was moved, when there was one.
    public var damagedDatabase: String?

    private enum CodingKeys: String, CodingKey { case recovered, skipped, damagedDatabase = "damaged_database" }
}

extension NotesStore {
    /// Rebuilds a store whose database is missing, empty or damaged from its recordings: the old database
    /// (if any) is moved aside, never deleted, and every readable recording becomes a note again, dated by
    /// its file, with all its stages queued. Runs under the store's lock, so no other process repairs too.
    public static func repair(directory: URL = NotesStore.defaultDirectory()) throws -> NotesRepair {
        try FileLock.withExclusiveLock(at: directory.appendingPathComponent(".repair.lock")) {
            let database = directory.appendingPathComponent(databaseName)
            var movedAside: String?
            let size = (try? FileManager.default.attributesOfItem(atPath: database.path)[.size] as? Int) ?? nil
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
            let known = Set(try store.guarded { try store.db.query("SELECT audio_file FROM notes") }.compactMap { $0.first?.string })
            var recovered = 0, skipped: [String] = []
            for file in recordings(in: store.audioDirectory) where !known.contains(file.lastPathComponent) {
                guard let duration = try? AudioFileLoader().duration(path: file.path) else { skipped.append(file.path); continue }
                let created = (try? FileManager.default.attributesOfItem(atPath: file.path)[.modificationDate] as? Date) ?? Date()
                _ = try store.insertNote(stored: file.lastPathComponent, name: file.lastPathComponent, duration: duration,
                                         created: created, tags: ["recovered"])
                recovered += 1
            }
            return NotesRepair(recovered: recovered, skipped: skipped, damagedDatabase: movedAside)
        }
    }
}
