import EarshotCore
import EarshotNotes
import Foundation

/// `earshot notes template list|add|remove`: the summary templates notes are written with.
enum NotesTemplateCommand {
    static let command = Command(
        name: "template",
        abstract: "Summary templates: list them, add your own, remove yours.",
        discussion: """
        A note's summary is one or two sentences, then the sections of its template, each a few points the note
        says (a point the note does not say is dropped, and so is a section left empty). Built in: memo (the
        plain summary; the default), meeting (Decisions, Discussed), one-to-one (Updates, Concerns, Agreed),
        lecture (Key points, Terms), call (Purpose, Outcome). Choose one per note with `notes add --template`,
        `notes import --template`, or rewrite a note with `notes edit ID --template NAME`.
        """,
        examples: ["earshot notes template list", "earshot notes template add standup --instructions \"A team's daily standup\" --sections \"Done,Next,Blocked\"",
                   "earshot notes edit 4 --template standup", "earshot notes template remove standup"],
        subcommands: [listCommand, addCommand, removeCommand])

    static let listCommand = Command(
        name: "list", abstract: "List the summary templates, built-in ones first.", usage: "[--json]",
        options: [Option(name: "json", value: nil, help: "Print the templates as JSON.")],
        examples: ["earshot notes template list", "earshot notes template list --json"],
        run: { args in
            let templates = try await NotesCommand.readableLibrary().templates()
            if args.flag("json") { try JSONOutput.document(templates); return 0 }
            for t in templates {
                let sections = t.sections.isEmpty ? "the summary alone" : t.sections.joined(separator: ", ")
                print("\(t.name)\(t.builtIn ? " (built in)" : ""): \(sections)\n  \(t.instructions)")
            }
            return 0
        })

    static let addCommand = Command(
        name: "add", abstract: "Add a template of your own (or replace yours of that name).",
        usage: "<name> --instructions text [--sections \"A,B,C\"]",
        discussion: """
        The instructions say what the template looks for, in a sentence; they go to the language model with each
        heading. Up to 5 headings, comma-separated (none: one, the template's name).
        """,
        options: [
            Option(name: "instructions", value: "text", help: "What the summary should look for, in a sentence."),
            Option(name: "sections", value: "headings", help: "Comma-separated headings, in order (at most 5)."),
        ],
        examples: ["earshot notes template add standup --instructions \"A team's daily standup\" --sections \"Done,Next,Blocked\"",
                   "earshot notes template add recipe --instructions \"A recipe read aloud: ingredients and steps\" --sections \"Ingredients,Steps\""],
        run: { args in
            guard let name = args.positionals.first else { throw UsageError(message: "give the template's name", path: args.path) }
            guard let instructions = args.value("instructions") else {
                throw UsageError(message: "give --instructions: what the template looks for, in a sentence", path: args.path)
            }
            let sections = (args.value("sections") ?? "").split(separator: ",").map(String.init)
            let template = try await NotesLibrary().saveTemplate(name: name, instructions: instructions, sections: sections)
            print("template \(template.name): \(template.sections.joined(separator: ", "))")
            return 0
        })

    static let removeCommand = Command(
        name: "remove", abstract: "Remove a template of your own (notes written with it keep their summaries).",
        usage: "<name>",
        examples: ["earshot notes template remove standup"],
        run: { args in
            guard let name = args.positionals.first else { throw UsageError(message: "give the template's name", path: args.path) }
            let notes = try await NotesLibrary().removeTemplate(named: name)
            print("template \(name) removed" + (notes.isEmpty ? "" : "; notes \(notes.map(String.init).joined(separator: ", ")) keep their summaries"
                + " and are written as a memo when rewritten"))
            return 0
        })
}
