import EarshotCore
import EarshotNotes
import Foundation

/// `earshot notes actions`: what people said they would do, across notes, by person.
enum NotesActionsCommand {
    static let command = Command(
        name: "actions",
        abstract: "Action items across notes, each with its owner and where it was said; by person, open only.",
        usage: "[--person NAME|ID] [--open] [--json]",
        options: [
            Option(name: "person", value: "name", help: "Only the items this person owns (a name, or an id from `earshot people list`)."),
            Option(name: "open", value: nil, help: "Only the items not marked done."),
            Option(name: "json", value: nil, help: "Print them as JSON (note, item, note_title, action: text, owner, person, start, done)."),
        ],
        examples: ["earshot notes actions --open", "earshot notes actions --person Tom --open", "earshot notes actions --json"],
        run: run)

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        let library = try NotesCommand.readableLibrary()
        let person = try await NotesCommand.person(args.value("person"), in: library, args)
        let actions = try await library.actions(person: person, open: args.flag("open"))
        if args.flag("json") {
            try JSONOutput.document(actions)
            return 0
        }
        if actions.isEmpty { print(args.flag("open") ? "nothing open" : "no action items yet") }
        for a in actions {
            let at = a.action.start.map { " at " + NotesExporter.durationText($0) } ?? ""
            print("[\(a.action.done ? "x" : " ")] \(ShownText.escaped(a.action.line))  (note \(a.note), item \(a.item)\(at): "
                  + "\(ShownText.escaped(a.noteTitle)))")
        }
        return 0
    }
}

/// `earshot notes done`: ticks an action item off (or opens it again).
enum NotesDoneCommand {
    static let command = Command(
        name: "done",
        abstract: "Mark a note's action item done (numbered from 1 as `notes actions` and `notes show` list them).",
        usage: "<id> <item> [--undo]",
        options: [Option(name: "undo", value: nil, help: "Mark it open again.")],
        examples: ["earshot notes done 3 1", "earshot notes done 3 1 --undo"],
        run: run)

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        let id = try NotesCommand.noteID(args.positionals.first, args)
        guard args.positionals.count == 2, let item = Int(args.positionals[1]), item > 0 else {
            throw UsageError(message: "give the note and the item's number (from 1; `earshot notes actions` lists them)", path: args.path)
        }
        let action = try await NotesLibrary().markAction(id, item: item, done: !args.flag("undo"))
        print("note \(id), item \(item): \(ShownText.escaped(action.line)) — \(action.done ? "done" : "open")")
        return 0
    }
}
