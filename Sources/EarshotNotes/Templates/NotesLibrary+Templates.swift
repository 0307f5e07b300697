import Foundation

/// Summary templates: the built-in ones (memo, meeting, one-to-one, lecture, call) and people's own.
extension NotesLibrary {
    /// Every template, the built-in ones first.
    public func templates() throws -> [SummaryTemplate] { try store.templates() }

    /// The template called `name` (any case); `NotesError.unknownTemplate` lists those there are.
    public func template(named name: String) throws -> SummaryTemplate { try store.template(named: name) }

    /// Keeps a template of your own: its name, what it looks for, and its headings (none: one, its name). A template of
    /// the same name is replaced.
    @discardableResult
    public func saveTemplate(name: String, instructions: String, sections: [String] = []) throws -> SummaryTemplate {
        try store.saveTemplate(name: name, instructions: instructions, sections: sections)
    }

    /// Removes a template of your own; returns the notes that were written with it (they keep their summaries).
    @discardableResult
    public func removeTemplate(named name: String) throws -> [Int] { try store.removeTemplate(named: name) }

    /// Writes note `id` with template `name`: its summary, title and action items are written again in the background
    /// (`rewrite: false` only records the choice, for a note not summarised yet).
    public func setTemplate(of id: Int, to name: String, rewrite: Bool = true) throws {
        try store.setTemplate(of: id, to: name, rewrite: rewrite)
    }
}
