import EarshotCore
import EarshotNotes
import EarshotVoice
import Foundation

/// Voice notes: upload (saved at once, processed in the background), list, search by words and meaning, show,
/// edit, delete, retry, export, and the recording itself (with Range, so the page's player can seek).
enum NotesRoutes {
    struct Edit: Codable, Sendable {
        var title: String?
        var addTags: [String]?
        var removeTags: [String]?
        /// A summary template to write the note with again.
        var template: String?
    }

    struct Retried: Codable, Sendable { var queued: Int }
    struct SpeakerName: Codable, Sendable { var from: String; var to: String; var enroll: Bool? }

    /// Matches in search snippets are marked with two private-use characters, which no transcript contains: the
    /// page escapes the snippet as text, then turns these into <mark> (a transcript can never inject HTML).
    static let highlight = NotesSearch.Highlight(open: "\u{E000}", close: "\u{E001}")

    /// The tags an upload asks for: `tags` fields, each comma-separated.
    static func uploadTags(_ request: HTTPRequest) -> [String] {
        request.fields("tags").flatMap { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } }.filter { !$0.isEmpty }
    }

    /// How many people speak in an upload, when the uploader knows.
    static func uploadSpeakers(_ request: HTTPRequest) throws -> Int? {
        guard let count = request.field("speakers"), !count.isEmpty else { return nil }
        guard let n = Int(count) else { throw HTTPError(400, "speakers must be a whole number; got '\(ShownText.echoed(count))'") }
        return n
    }

    /// A new note: the background worker wakes and the pages hear of it.
    static func arrived(_ id: Int, _ services: Services) {
        services.notesArrived.withLock { $0 = true }
        services.noteEvents.publish(.init(note: id, change: "added"))
    }

    static func add(to router: inout Router, _ services: Services) {
        router.add("GET", "/api/notes") { request, _ in
            let notes = try services.notes()
            let limit = try request.integer("limit", default: 50, range: 1...1000)
            if let query = request.query["q"] {
                let mode = try NotesSearch.Mode(rawValue: request.query["mode"] ?? "both")
                    .orThrow(HTTPError(400, "mode must be words, meaning or both"))
                let person = try request.personID()
                return .json(try await notes.search(query, mode: mode, limit: limit, highlight: highlight, person: person))
            }
            return .json(try await notes.list(tag: request.query["tag"], speaker: request.query["speaker"], limit: limit).map(\.overview))
        }
        router.add("POST", "/api/notes") { request, _ in
            let file = try request.requireFile("file")
            let note = try await services.notes().add(file: file.path, name: file.filename, tags: uploadTags(request),
                                                      speakers: try uploadSpeakers(request))
            arrived(note.id, services)
            return .json(NotesExporter.document(note), status: 201)
        }
        // a recording made elsewhere: dated when it was recorded (its container's time, else `modified`, the file's own
        // time in ms as the browser knows it), skipped when its audio is already a note
        router.add("POST", "/api/notes/import") { request, _ in
            let file = try request.requireFile("file")
            var modified: Date?
            if let ms = request.field("modified"), !ms.isEmpty {
                guard let value = Double(ms), value.isFinite, value >= 0 else {
                    throw HTTPError(400, "modified must be the file's time in milliseconds since 1970; got '\(ShownText.echoed(ms))'")
                }
                modified = Date(timeIntervalSince1970: value / 1000)
            }
            let speakers = try uploadSpeakers(request)
            let result = try await services.notes().importRecording(file.path, name: file.filename, modified: modified,
                                                                tags: uploadTags(request), speakers: speakers)
            switch result.outcome {
            case .imported: arrived(result.note!, services); return .json(result, status: 201)
            case .duplicate: return .json(result)
            case .failed: throw HTTPError(400, result.error ?? "\(file.filename): not imported")
            }
        }
        // Server-Sent Events: `ready`, then a `note` event ({note, change, stage}) for every change (the Notes page
        // listens instead of polling)
        router.add("GET", "/api/notes/events") { _, _ in
            HTTPResponse(status: 200, headers: [("Content-Type", "text/event-stream"), ("Cache-Control", "no-store")],
                         body: .stream(services.noteEvents.subscribe()))
        }
        router.add("GET", "/api/notes/:id") { _, p in
            .json(NotesExporter.document(try await services.notes().note(try p.id("id"))))
        }
        router.add("PATCH", "/api/notes/:id") { request, p in
            let edit = try request.json(Edit.self)
            let notes = try services.notes()
            let id = try p.id("id")
            if let title = edit.title, title.trimmingCharacters(in: .whitespaces).isEmpty || title.count > 200 {
                throw HTTPError(400, "a title has 1 to 200 characters")
            }
            if let template = edit.template {
                try await notes.setTemplate(of: id, to: template)
                services.notesArrived.withLock { $0 = true }  // the summary is queued again
            }
            try await notes.edit(id, title: edit.title, addTags: edit.addTags ?? [], removeTags: edit.removeTags ?? [])
            services.noteEvents.publish(.init(note: id, change: "edited"))
            return .json(NotesExporter.document(try await notes.note(id)))
        }
        router.add("DELETE", "/api/notes/:id") { _, p in
            try await services.notes().delete(try p.id("id"))
            services.noteEvents.publish(.init(note: try p.id("id"), change: "deleted"))
            return HTTPResponse(status: 204)
        }
        router.add("POST", "/api/notes/:id/retry") { request, p in
            let stage = try request.parameter("stage").map {
                try NoteStage(rawValue: $0).orThrow(HTTPError(400, "stage must be one of " + NoteStage.allCases.map(\.rawValue).joined(separator: ", ")))
            }
            let queued = try await services.notes().retry(try p.id("id"), from: stage)
            services.notesArrived.withLock { $0 = true }
            return .json(Retried(queued: queued))
        }
        // names a voice of the note ("SPEAKER_02" is Ruth), and with `enroll` enrols it from the note's speech; the
        // summary is then written again with the name
        router.add("POST", "/api/notes/:id/speakers") { request, p in
            let rename = try request.json(SpeakerName.self)
            let notes = try services.notes()
            let id = try p.id("id")
            if rename.enroll == true {
                _ = try await notes.enrollSpeaker(id, speaker: rename.from, as: rename.to, voices: try services.voices())
            } else {
                try await notes.renameSpeaker(id, from: rename.from, to: rename.to)
            }
            services.noteEvents.publish(.init(note: id, change: "edited"))
            services.notesArrived.withLock { $0 = true }
            return .json(NotesExporter.document(try await notes.note(id)))
        }
        router.add("GET", "/api/notes/:id/audio") { request, p in
            let note = try await services.notes().note(try p.id("id"))
            let name = (note.sourceName as NSString).deletingPathExtension + "." + (note.audioPath as NSString).pathExtension
            return .download(path: note.audioPath, name: name, contentType: contentType(ofAudio: note.audioPath), request: request, inline: true)
        }
        router.add("GET", "/api/notes/:id/export") { request, p in
            let format = try NotesExporter.Format(rawValue: request.query["format"] ?? "md")
                .orThrow(HTTPError(400, "format must be one of " + NotesExporter.Format.allCases.map(\.rawValue).joined(separator: ", ")))
            let notes = try services.notes(), id = try p.id("id")
            return try await services.withScratch("export") { folder in
                let file = try await notes.export(id, format: format, to: folder)
                return try .attachment(file: file.path, name: file.lastPathComponent, contentType: exportType(format),
                                       slots: services.downloads)
            }
        }
    }

    static func contentType(ofAudio path: String) -> String {
        switch (path as NSString).pathExtension.lowercased() {
        case "wav": return "audio/wav"
        case "flac": return "audio/flac"
        case "mp3": return "audio/mpeg"
        case "ogg", "oga": return "audio/ogg"
        case "webm": return "audio/webm"
        case "m4a", "mp4": return "audio/mp4"
        default: return "application/octet-stream"
        }
    }

    static func exportType(_ format: NotesExporter.Format) -> String {
        switch format {
        case .md: return "text/markdown; charset=utf-8"
        case .txt: return "text/plain; charset=utf-8"
        case .srt: return "application/x-subrip; charset=utf-8"
        case .vtt: return "text/vtt; charset=utf-8"
        case .json: return "application/json"
        }
    }
}

extension Optional {
    func orThrow(_ error: @autoclosure () -> Error) throws -> Wrapped {
        guard let value = self else { throw error() }
        return value
    }
}
