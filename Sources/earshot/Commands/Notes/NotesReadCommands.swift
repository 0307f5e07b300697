import EarshotCore
import EarshotNotes
import Foundation

enum NotesListCommand {
    static let command = Command(
        name: "list",
        abstract: "List notes, newest first, with the state of their stages.",
        options: [
            Option(name: "since", value: "date", help: "Only notes created on or after this date (YYYY-MM-DD)."),
            Option(name: "tag", value: "tag", help: "Only notes with this tag."),
            Option(name: "speaker", value: "name", help: "Only notes in which this person (or SPEAKER_nn) speaks."),
            Option(name: "limit", value: "n", help: "At most n notes."),
            Option(name: "json", value: nil, help: "Print the notes as JSON."),
        ],
        examples: ["earshot notes list", "earshot notes list --since 2026-11-01 --tag work --json", "earshot notes list --speaker Ruth"],
        run: run)

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        let since = try NotesCommand.date(args.value("since"), option: "since", args)
        let limit = args.value("limit") == nil ? nil : try args.int("limit", default: 0, range: 1...1_000_000)
        let library = try NotesCommand.readableLibrary()
        // a damaged store lists what it can still read, and says so in its exit status too
        let damaged = library.damage != nil
        let notes = try await library.list(since: since, tag: args.value("tag"), speaker: args.value("speaker"), limit: limit)
        if args.flag("json") {
            try JSONOutput.document(notes.map(\.overview))
            return damaged ? 1 : 0
        }
        if notes.isEmpty {
            print(damaged ? "no note can be read from the damaged store: run `earshot notes repair`"
                : "no notes yet: earshot notes add FILE (or earshot notes seed for samples)")
        }
        for n in notes {
            let tags = n.tags.isEmpty ? "" : "  " + n.tags.map { "#\($0)" }.joined(separator: " ")
            print(ShownText.escaped(String(format: "%5d  %@  %@  %@  [%@]%@", n.id, NotesExporter.dateText(n.created),
                                           NotesExporter.durationText(n.duration), n.displayTitle, n.status, tags)))
        }
        return damaged ? 1 : 0
    }
}

enum NotesShowCommand {
    static let command = Command(
        name: "show",
        abstract: "Show a note: title, date, duration, summary, action items and the transcript with times.",
        usage: "<id> [--json]",
        options: [Option(name: "json", value: nil, help: "Print the note as JSON.")],
        examples: ["earshot notes show 3", "earshot notes show 3 --json"],
        run: run)

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        let note = try await NotesCommand.readableLibrary().note(try NotesCommand.noteID(args.positionals.first, args))
        if args.flag("json") {
            print(try NotesExporter.render(note, format: .json), terminator: "")
            return 0
        }
        print(ShownText.escaped(try NotesExporter.render(note, format: .txt), keepingLineBreaks: true), terminator: "")
        let states = note.stages.map { "\($0.stage.rawValue): \($0.state.rawValue)" + ($0.error.map { " (\($0))" } ?? "") }
        print("\nstages: " + states.joined(separator: ", ") + (note.languageModel.isEmpty ? "" : "; written by \(note.languageModel)"))
        return 0
    }
}

enum NotesSearchCommand {
    static let command = Command(
        name: "search",
        abstract: "Search notes by their words and by meaning, best first, with the matching words highlighted.",
        usage: "<query> [--words | --semantic]",
        discussion: """
        Words are matched ignoring case and accents ("cafe" finds "Café"); all words must appear, or if no
        note has them all, any. FTS5 syntax works too: "exact phrase", budget OR costs, NOT draft, launch*.
        --semantic finds notes by meaning (all-MiniLM-L6-v2 embeddings), even without shared words, leaving
        out notes whose cosine to the query is under 0.2 (about something else); the default ranks by both.
        """,
        options: [
            Option(name: "words", value: nil, help: "Match words only (full-text index)."),
            Option(name: "semantic", value: nil, help: "Match by meaning only."),
            Option(name: "person", value: "name", help: "Only the notes this person is heard in (a name, or an id from `earshot people list`)."),
            Option(name: "limit", value: "n", help: "At most n results (default 10)."),
            Option(name: "json", value: nil, help: "Print the results as JSON."),
        ],
        examples: ["earshot notes search cafe", "earshot notes search \"where do we eat\" --semantic", "earshot notes search 'launch AND NOT draft' --words",
                   "earshot notes search budget --person Priya"],
        run: run)

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        let query = args.positionals.joined(separator: " ")
        guard !(args.flag("words") && args.flag("semantic")) else { throw UsageError(message: "give --words or --semantic, not both", path: args.path) }
        let mode: NotesSearch.Mode = args.flag("words") ? .words : args.flag("semantic") ? .meaning : .both
        let limit = try args.int("limit", default: 10, range: 1...1000)
        let json = args.flag("json")
        let marks = json || isatty(1) != 1 ? NotesSearch.Highlight.brackets : NotesSearch.Highlight(open: "\u{1B}[1m", close: "\u{1B}[0m")
        let library = try NotesCommand.readableLibrary()
        let person = try await NotesCommand.person(args.value("person"), in: library, args)
        let hits = try await library.search(query, mode: mode, limit: limit, highlight: marks, person: person)
        if json {
            try JSONOutput.document(hits)
            return 0
        }
        if hits.isEmpty { print("no notes match '\(query)'") }
        for h in hits {
            print(String(format: "%5d  %@  %@", h.id, NotesExporter.dateText(h.created), h.title.isEmpty ? "(untitled)" : h.title))
            print("       \(h.snippet.replacingOccurrences(of: "\n", with: " "))")
        }
        return 0
    }
}
