import EarshotCore
import EarshotNotes
import Foundation

/// People heard in the notes: list, one person, name them (every note of theirs follows), merge two, split one
/// note's voice off, forget one.
enum PeopleRoutes {
    struct Rename: Codable, Sendable { var name: String; var enroll: Bool? }
    struct Merge: Codable, Sendable { var other: Int }
    struct Split: Codable, Sendable { var note: Int }
    /// A person after a change, and the notes whose labels it changed (their summaries are written again).
    struct Changed: Codable, Sendable { var person: Person; var notes: [Int] }

    static func add(to router: inout Router, _ services: Services) {
        router.add("GET", "/api/people") { _, _ in
            .json(try await services.notes().people())
        }
        router.add("GET", "/api/people/:id") { _, p in
            .json(try await services.notes().person(try p.id("id")))
        }
        router.add("PATCH", "/api/people/:id") { request, p in
            let rename = try request.json(Rename.self)
            let named = try await services.notes().namePerson(try p.id("id"), as: rename.name,
                                                              enrollingWith: rename.enroll == true ? try services.voices() : nil)
            return .json(Changed(person: named.person, notes: published(named.notes, services)))
        }
        router.add("DELETE", "/api/people/:id") { request, p in
            let redact = try request.flag("redact")
            let forgotten = try await services.notes().forgetPerson(try p.id("id"), redact: redact)
            _ = published(forgotten.notes, services)
            return .json(forgotten)
        }
        router.add("POST", "/api/people/:id/merge") { request, p in
            let merge = try request.json(Merge.self)
            let notes = try services.notes()
            let id = try p.id("id")
            let changed = try await notes.mergePeople(id, with: merge.other)
            return .json(Changed(person: try await notes.person(id), notes: published(changed, services)))
        }
        router.add("POST", "/api/people/:id/split") { request, p in
            let split = try request.json(Split.self)
            let notes = try services.notes()
            let id = try p.id("id")
            let named = try await notes.person(id).name != nil
            let other = try await notes.splitPerson(id, note: split.note)
            return .json(Changed(person: try await notes.person(other), notes: published(named ? [split.note] : [], services)))
        }
    }

    struct Mark: Codable, Sendable { var done: Bool }

    /// Action items across notes (`?person=ID`, `?open=true`), and one ticked off.
    static func addActions(to router: inout Router, _ services: Services) {
        router.add("GET", "/api/actions") { request, _ in
            let person = try request.personID()
            let open = try request.flag("open")
            let notes = try services.notes()
            if let person { _ = try await notes.person(person) }  // an unknown person is a 404, not an empty list
            return .json(try await notes.actions(person: person, open: open))
        }
        router.add("PATCH", "/api/notes/:id/actions/:item") { request, p in
            let mark = try request.json(Mark.self)
            let id = try p.id("id")
            let action = try await services.notes().markAction(id, item: try p.id("item"), done: mark.done)
            services.noteEvents.publish(.init(note: id, change: "edited"))
            return .json(action)
        }
    }

    /// Tells the pages each relabelled note changed, and the worker that their summaries wait.
    private static func published(_ notes: [Int], _ services: Services) -> [Int] {
        for note in notes { services.noteEvents.publish(.init(note: note, change: "edited")) }
        if !notes.isEmpty { services.notesArrived.withLock { $0 = true } }
        return notes
    }
}
