import Foundation

/// The summary templates: the built-in ones and those people wrote, and the one each note is written with.
extension NotesStore {
    /// Every template: the built-in ones first, then people's by name.
    public func templates() throws -> [SummaryTemplate] {
        let custom = try guarded {
            try db.query("SELECT name, instructions, sections FROM templates ORDER BY name COLLATE NOCASE").compactMap { row -> SummaryTemplate? in
                guard let name = row[0].string, let instructions = row[1].string else { return nil }
                let sections = (try? JSONDecoder().decode([String].self, from: Data((row[2].string ?? "[]").utf8))) ?? []
                return SummaryTemplate(name: name, instructions: instructions, sections: sections)
            }
        }
        return SummaryTemplate.builtIns + custom
    }

    /// The template called `name` (any case), or `NotesError.unknownTemplate`.
    public func template(named name: String) throws -> SummaryTemplate {
        let all = try templates()
        let key = name.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
        guard let found = all.first(where: { $0.name.lowercased() == key }) else {
            throw NotesError.unknownTemplate(name: name, known: all.map(\.name))
        }
        return found
    }

    /// Keeps a template people wrote (checked by `SummaryTemplate.custom`); one of the same name is replaced. A built-in
    /// template's name cannot be taken.
    @discardableResult
    public func saveTemplate(name: String, instructions: String, sections: [String]) throws -> SummaryTemplate {
        try requireWritable()
        let template = try SummaryTemplate.custom(name: name, instructions: instructions, sections: sections)
        if SummaryTemplate.builtIns.contains(where: { $0.name.lowercased() == template.name.lowercased() }) {
            throw NotesError.badTemplate("'\(template.name)' is a built-in template: give yours another name")
        }
        let sections = String(decoding: try JSONEncoder().encode(template.sections), as: UTF8.self)
        try guarded {
            try db.query("INSERT OR REPLACE INTO templates (name, instructions, sections, created) VALUES (?, ?, ?, ?)",
                         [.text(template.name), .text(template.instructions), .text(sections), .real(Date().timeIntervalSince1970)])
        }
        return template
    }

    /// Removes a template people wrote; the notes written with it keep their summaries and are written with the default
    /// template when next rewritten. Returns those notes.
    @discardableResult
    public func removeTemplate(named name: String) throws -> [Int] {
        try requireWritable()
        let template = try template(named: name)
        guard !template.builtIn else { throw NotesError.badTemplate("'\(template.name)' is built in and cannot be removed") }
        return try guarded {
            try db.transaction {
                let notes = try db.query("SELECT note_id FROM note_templates WHERE name = ? COLLATE NOCASE ORDER BY note_id",
                                         [.text(template.name)]).compactMap { $0[0].int }
                try db.query("DELETE FROM note_templates WHERE name = ? COLLATE NOCASE", [.text(template.name)])
                try db.query("DELETE FROM templates WHERE name = ?", [.text(template.name)])
                return notes
            }
        }
    }

    /// Writes note `id` with template `name` from now on; with `rewrite`, its summary is written again now (queued:
    /// the summary, title, items and embedding stages run again once the note is transcribed).
    public func setTemplate(of id: Int, to name: String, rewrite: Bool = true) throws {
        try requireWritable()
        _ = try note(id)
        let template = try template(named: name)
        try guarded {
            try db.transaction {
                if template.name == SummaryTemplate.defaultName {
                    try db.query("DELETE FROM note_templates WHERE note_id = ?", [.integer(Int64(id))])
                } else {
                    try db.query("INSERT OR REPLACE INTO note_templates (note_id, name, chosen) VALUES (?, ?, ?)",
                                 [.integer(Int64(id)), .text(template.name), .real(Date().timeIntervalSince1970)])
                }
                if rewrite { try requeue(id, from: .summarise) }
            }
        }
    }
}

/// A damaged store's templates and the notes' choices of them, as far as SQLite still reads them (repair carries them
/// over; what cannot be read is lost, and those notes are written as memos).
struct CarriedTemplates {
    var templates: [[SQLValue]] = []
    var choices: [[SQLValue]] = []

    static func read(from store: NotesStore) -> CarriedTemplates {
        // a table a damaged page makes unreadable carries nothing: what is left of the store matters more
        CarriedTemplates(templates: (try? store.db.query("SELECT name, instructions, sections, created FROM templates")) ?? [],
                         choices: (try? store.db.query("SELECT note_id, name, chosen FROM note_templates")) ?? [])
    }
}

extension NotesStore {
    /// Puts carried templates back, and each choice whose note was carried.
    func carry(_ carried: CarriedTemplates) throws {
        try guarded {
            try db.transaction {
                for row in carried.templates where row.count == 4 {
                    try db.query("INSERT OR IGNORE INTO templates (name, instructions, sections, created) VALUES (?, ?, ?, ?)", row)
                }
                for row in carried.choices where row.count == 3 {
                    try db.query("INSERT OR IGNORE INTO note_templates (note_id, name, chosen) SELECT id, ?, ? FROM notes WHERE id = ?",
                                 [row[1], row[2], row[0]])
                }
            }
        }
    }
}
