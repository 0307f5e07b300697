import EarshotCore
import EarshotNotes
import Foundation

enum NotesAskCommand {
    static let command = Command(
        name: "ask",
        abstract: "Ask your notes a question: an answer from what was said, citing each note, moment and speaker.",
        usage: "<question> [--person NAME] [--since DATE] [--until DATE] [--note ID] [--json]",
        discussion: """
        The passages of the notes closest to the question (by words and by meaning) go to the local language
        model, which answers only from them, citing each claim; every citation is checked against the passages
        it was given. When the notes do not say, the answer says so and lists the closest passages instead.
        A question that names a span of time ("last week", "yesterday", "this month") is asked of the notes
        recorded then; a person it names, of the notes they are heard or named in, their own words first.
        """,
        options: [
            Option(name: "person", value: "name", help: "Only the notes this person is heard in (a name, or an id from `earshot people list`)."),
            Option(name: "since", value: "date", help: "Only notes recorded on or after this date (YYYY-MM-DD)."),
            Option(name: "until", value: "date", help: "Only notes recorded before this date (YYYY-MM-DD)."),
            Option(name: "note", value: "id", help: "Only this note."),
            Option(name: "json", value: nil, help: "Print the answer as JSON: answer, answered, citations, passages."),
            Option(name: "llm", value: "model", help: "Language model that answers: default (1.5B) or small (135M, much weaker)."),
            Option(name: "threads", value: "n", help: "CPU threads for the models (default 2)."),
        ],
        examples: ["earshot notes ask \"What did we decide about the booth budget?\"",
                   "earshot notes ask \"What did Priya promise last week?\"",
                   "earshot notes ask \"When is the launch?\" --note 4 --json"],
        run: run)

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        let question = args.positionals.joined(separator: " ").trimmingCharacters(in: .whitespacesAndNewlines)
        guard !question.isEmpty else { throw UsageError(message: "give a question, e.g. earshot notes ask \"When is the launch?\"", path: args.path) }
        let library = try NotesCommand.library(args)
        var scope = AskScope(person: try await NotesCommand.person(args.value("person"), in: library, args),
                             since: try NotesCommand.date(args.value("since"), option: "since", args),
                             until: try NotesCommand.date(args.value("until"), option: "until", args))
        if let note = args.value("note") { scope.note = try NotesCommand.noteID(note, args) }
        let json = args.flag("json"), live = !json && isatty(2) == 1
        if live { StandardError.write("looking through the notes…") }
        let answer = try await library.ask(question, scope: scope) { event in
            guard live else { return }
            switch event {
            case let .passages(found): StandardError.write(found.isEmpty ? "\r\u{1B}[K" : "\r\u{1B}[K\u{1B}[2m")
            case let .text(piece): StandardError.write(piece)
            }
        }
        if live { StandardError.write("\u{1B}[0m\r\u{1B}[K\n") }
        if json {
            try JSONOutput.document(answer)
            return 0
        }
        print(ShownText.escaped(answer.answer))
        let listed = answer.answered ? answer.citations : answer.passages
        if !listed.isEmpty { print(answer.answered ? "" : "\nclosest passages:") }
        for (i, p) in listed.enumerated() {
            let who = p.speaker.map { " · \($0)" } ?? ""
            let title = p.title.isEmpty ? "" : " \"\(p.title)\""
            print(ShownText.escaped("\(answer.answered ? "[\(i + 1)] " : "  ")note \(p.note)\(title) · \(NotesExporter.dateText(p.created)) · "
                                    + "\(NotesExporter.durationText(p.start))–\(NotesExporter.durationText(p.end))\(who)"))
            print(ShownText.escaped("    \"\(p.text)\""))
        }
        return 0
    }
}
