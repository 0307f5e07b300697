import EarshotCore
import EarshotNotes
import Foundation

/// Corrections of a note's transcript: a segment's words or speaker, the list kept, the last undone.
enum CorrectionRoutes {
    struct Correct: Codable, Sendable {
        var text: String?
        var speaker: String?
        var rewriteSummary: Bool?
    }

    struct Undone: Codable, Sendable { var undone: Correction? }

    static func add(to router: inout Router, _ services: Services) {
        router.add("PATCH", "/api/notes/:id/segments/:segment") { request, p in
            let correct = try request.json(Correct.self)
            let id = try p.id("id")
            let correction = try await services.notes().correct(id, segment: try p.id("segment"), text: correct.text,
                                                                speaker: correct.speaker, rewriteSummary: correct.rewriteSummary ?? false)
            changed(id, services)
            return .json(correction)
        }
        router.add("GET", "/api/notes/:id/corrections") { _, p in
            .json(try await services.notes().corrections(of: try p.id("id")))
        }
        router.add("POST", "/api/notes/:id/corrections/undo") { _, p in
            let id = try p.id("id")
            let undone = try await services.notes().undoCorrection(id)
            if undone != nil { changed(id, services) }
            return .json(Undone(undone: undone))
        }
    }

    /// Tells the pages the note changed, and the worker that a stage of it waits (its embedding, maybe its summary).
    private static func changed(_ id: Int, _ services: Services) {
        services.noteEvents.publish(.init(note: id, change: "edited"))
        services.notesArrived.withLock { $0 = true }
    }
}
