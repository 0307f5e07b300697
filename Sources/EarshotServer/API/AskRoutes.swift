import EarshotCore
import EarshotNotes
import Foundation

/// Questions asked of the notes: an answer from the local language model that cites the moments it rests on. With
/// `Accept: text/event-stream`, `passages` comes at once (what the answer will be drawn from), `token` events as
/// the answer is written, then `done` with the checked answer; otherwise the answer alone, as JSON.
enum AskRoutes {
    struct Question: Codable, Sendable {
        var question: String
        var person: Int?
        var note: Int?
        /// A day (YYYY-MM-DD) or an ISO 8601 moment.
        var since: String?
        var until: String?
    }

    struct Token: Codable, Sendable { var text: String }

    static func add(to router: inout Router, _ services: Services) {
        router.add("POST", "/api/notes/ask") { request, _ in
            let asked = try request.json(Question.self)
            let question = asked.question.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !question.isEmpty, question.count <= 1_000 else { throw HTTPError(400, "a question has 1 to 1,000 characters") }
            let scope = AskScope(note: asked.note, person: asked.person, since: try date(asked.since, "since"), until: try date(asked.until, "until"))
            let notes = try services.notes()
            return try await Jobs.run(request, services) { emit in
                try await notes.ask(question, scope: scope) { event in
                    switch event {
                    case let .passages(found): emit("passages", found)
                    case let .text(piece): emit("token", Token(text: piece))
                    }
                }
            }
        }
    }

    static func date(_ text: String?, _ name: String) throws -> Date? {
        guard let text, !text.isEmpty else { return nil }
        return try DateText.parse(text).orThrow(HTTPError(400, "\(name) must be a date like 2026-11-29 or an ISO 8601 time; got '\(ShownText.echoed(text))'"))
    }
}
