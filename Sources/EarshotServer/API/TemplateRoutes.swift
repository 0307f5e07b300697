import EarshotCore
import EarshotNotes
import Foundation

/// Summary templates: list them, keep one of your own, remove it. A note is rewritten with one through
/// `PATCH /api/notes/{id}` (`{"template": "meeting"}`).
enum TemplateRoutes {
    struct NewTemplate: Codable, Sendable {
        var name: String
        var instructions: String
        var sections: [String]?
    }

    struct Removed: Codable, Sendable { var removed: String; var notes: [Int] }

    static func add(to router: inout Router, _ services: Services) {
        router.add("GET", "/api/templates") { _, _ in
            .json(try await services.notes().templates())
        }
        router.add("POST", "/api/templates") { request, _ in
            let new = try request.json(NewTemplate.self)
            return .json(try await services.notes().saveTemplate(name: new.name, instructions: new.instructions, sections: new.sections ?? []),
                         status: 201)
        }
        router.add("DELETE", "/api/templates/:name") { _, p in
            let name = p["name"].removingPercentEncoding ?? p["name"]
            let notes = try await services.notes().removeTemplate(named: name)
            return .json(Removed(removed: name, notes: notes))
        }
    }
}
