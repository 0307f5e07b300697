import EarshotCore
import EarshotNotes
import EarshotSound
import EarshotSpeech
import EarshotVoice
import Foundation

/// The library's entry types the routes share: each loaded on first use and kept for the process's life.
final class Services: Sendable {
    let configuration: AppServer.Configuration
    let work: WorkQueue
    let live = LiveSessions()
    /// Realtime (WebSocket) transcription sessions open now.
    let realtimeSessions = Locked(0)
    /// Set when a note is added through the API: the background worker starts on it at once.
    let notesArrived = Locked(false)
    /// Changes to notes as they happen, for the pages' event streams.
    let noteEvents = NoteEvents()
    /// Exports being sent now (`DownloadSlots`).
    let downloads = DownloadSlots(limit: 16)
    private let notesLibrary = OnFirstUse<NotesLibrary>()
    private let voiceID = OnFirstUse<VoiceID>()
    private let speakerDiarizer = OnFirstUse<Diarizer>()

    /// This process's temporary files (uploads, exports, unpacked training sets): `$EARSHOT_HOME/server/run-PID`.
    /// Those of servers that died (killed mid-upload) are removed at start; other running servers keep theirs.
    let scratchRoot: URL

    init(_ configuration: AppServer.Configuration) throws {
        self.configuration = configuration
        work = WorkQueue(capacity: configuration.queueCapacity)
        try FileManager.default.createDirectory(at: configuration.soundModelsDirectory, withIntermediateDirectories: true)
        let server = configuration.models.home.appendingPathComponent("server")
        for name in (try? FileManager.default.contentsOfDirectory(atPath: server.path)) ?? [] where name.hasPrefix("run-") {
            if let pid = Int32(name.dropFirst(4)), !ProcessStatus.isRunning(pid) {
                try? FileManager.default.removeItem(at: server.appendingPathComponent(name))
            }
        }
        scratchRoot = server.appendingPathComponent("run-\(getpid())")
    }

    /// A fresh folder name for one request's temporary files (the caller creates and removes it).
    func scratch(_ purpose: String) -> URL {
        scratchRoot.appendingPathComponent("\(purpose)-\(UUID().uuidString)")
    }

    var models: ModelStore { configuration.models }

    /// `file`: the upload it will read (one longer than a window is read a window per thread at once).
    func transcriber(_ speech: Transcriber.Configuration? = nil, forFile file: String? = nil) throws -> Transcriber {
        let speech = speech ?? configuration.speech
        return try Transcriber.shared(speech, store: models, windowsAtOnce: file.map { Transcriber.windowsAtOnce(forFile: $0, threads: speech.threads) } ?? 1)
    }

    /// The notes store, opened on first use (a store that needs repair answers 503 until it is repaired).
    func notes() throws -> NotesLibrary {
        try notesLibrary.value {
            var options = NotesPipeline.Options()
            options.whisper = configuration.speech.model  // `serve --model` reaches the notes too
            options.languageModel = configuration.notesLanguageModel
            return try NotesLibrary(directory: configuration.notesDirectory, options: options, modelStore: models)
        }
    }

    func voices() throws -> VoiceID { try voiceID.value { try VoiceID(store: models) } }

    /// Who spoke when, voices named by the profiles `voices()` enrols.
    func diarizer() throws -> Diarizer { try speakerDiarizer.value { try Diarizer(store: models) } }

    /// The built-in classifier, or a trained one kept in the app's folder by name.
    func soundClassifier(named name: String?) throws -> SoundClassifier {
        guard let name, !name.isEmpty, name != "builtin" else { return try SoundClassifier.builtIn(store: models) }
        return try SoundClassifier.load(from: try soundModelPath(name, mustExist: true).path, store: models)
    }

    /// The file of a trained sound model; the name is checked before it becomes a path.
    func soundModelPath(_ name: String, mustExist: Bool) throws -> URL {
        guard SafeName.isValid(name) else {
            throw HTTPError(400, "'\(name)' is not a usable model name: letters, digits, '.', '_', '-', up to 64, not starting with '.'")
        }
        let url = configuration.soundModelsDirectory.appendingPathComponent("\(name).model")
        if mustExist && !FileManager.default.fileExists(atPath: url.path) {
            throw HTTPError(404, "no sound model named '\(name)'")
        }
        return url
    }
}

/// A value made on first use and kept; a failure is not kept (the next call tries again, e.g. after a repair).
final class OnFirstUse<Value: Sendable>: Sendable {
    private let made = Locked<Value?>(nil)

    func value(_ make: () throws -> Value) throws -> Value {
        try made.withLock { made in
            if let made { return made }
            let value = try make()
            made = value
            return value
        }
    }
}

/// Names that may become file names: no separators, no dot files, nothing a shell or a path would read twice.
enum SafeName {
    static func isValid(_ name: String) -> Bool {
        guard (1...64).contains(name.count), !name.hasPrefix(".") else { return false }
        return name.unicodeScalars.allSatisfy { CharacterSet.alphanumerics.contains($0) || "._-".unicodeScalars.contains($0) }
    }

    /// `name` as an ASCII file name for a download's Content-Disposition.
    static func fileName(_ name: String) -> String {
        String(name.unicodeScalars.map { $0.isASCII && (CharacterSet.alphanumerics.contains($0) || "._-".unicodeScalars.contains($0))
            ? Character($0) : "_" })
    }
}
