import Foundation

/// A note's action item as the lists across notes give it.
public struct NoteAction: Sendable, Equatable, Codable {
    public var note: Int
    /// The item's number in its note, from 1 (what `markAction` takes).
    public var item: Int
    public var noteTitle: String
    public var action: ActionItem

    enum CodingKeys: String, CodingKey { case note, item, noteTitle = "note_title", action }
}

/// Action items in the notes store: who owns each, open and done.
extension NotesStore {
    /// The items the note writer found in `note`, each linked to the person its owner is (a voice of the note, or
    /// the person of that name), with the done marks of the items the note had before (a summary written again after
    /// a rename keeps what was ticked off).
    func owned(_ items: [ActionItem], in note: Note) throws -> [ActionItem] {
        let done = Set(note.actions.filter(\.done).map { $0.text.lowercased() })
        return try items.map { item in
            var item = item
            if let owner = item.owner {
                item.person = try person(inNote: note.id, label: owner) ?? person(named: owner)?.id
            }
            item.done = done.contains(item.text.lowercased())
            return item
        }
    }

    /// Open (or all) action items across notes, newest note first, optionally only those a person owns.
    public func actions(person: Int? = nil, open: Bool = false) throws -> [NoteAction] {
        try list().flatMap { note in
            note.actions.enumerated().compactMap { i, action -> NoteAction? in
                guard !open || !action.done, person == nil || action.person == person else { return nil }
                return NoteAction(note: note.id, item: i + 1, noteTitle: note.displayTitle, action: action)
            }
        }
    }

    /// Marks item `item` (from 1) of note `id` done or open again; returns it.
    @discardableResult
    public func markAction(_ id: Int, item: Int, done: Bool) throws -> ActionItem {
        try guarded {
            try db.transaction {
                var actions = try note(id).actions
                guard actions.indices.contains(item - 1) else { throw NotesError.unknownAction(note: id, item: item, count: actions.count) }
                actions[item - 1].done = done
                try storeActions(actions, of: id)
                return actions[item - 1]
            }
        }
    }

    /// Inside a transaction: the items owned by the voice labelled `from` in note `id` now name `name`.
    func relabelOwners(of id: Int, from label: String, to name: String) throws {
        var actions = try note(id).actions
        guard actions.contains(where: { $0.owner == label }) else { return }
        for i in actions.indices where actions[i].owner == label { actions[i].owner = name }
        try storeActions(actions, of: id)
    }

    private func storeActions(_ actions: [ActionItem], of id: Int) throws {
        try db.query("UPDATE notes SET actions = ? WHERE id = ?",
                     [.text(String(decoding: try JSONEncoder().encode(actions), as: UTF8.self)), .integer(Int64(id))])
    }
}
