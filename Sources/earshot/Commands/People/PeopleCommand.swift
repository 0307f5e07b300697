import EarshotCore
import EarshotNotes
import EarshotVoice
import Foundation

/// `earshot people ...`: the people heard in the notes, each voice linked across notes to the person it is, named once.
enum PeopleCommand {
    static let command = Command(
        name: "people",
        abstract: "People heard in your notes: voices recognised across notes, named once, named everywhere.",
        discussion: """
        Each voice of a transcribed note is linked to the person it is: the person of that name when an enrolled
        profile recognised it, the person whose earlier voice it clearly matches, or a new unnamed person
        ("Voice 7"). Linking is cautious: a doubtful match makes a new person rather than risk making two people
        one, so one person may appear as two until named or merged. Naming a person relabels every note they are heard in, past and
        future; their summaries are written again by `earshot notes process` (or a running `earshot serve`).
        """,
        examples: ["earshot people list", "earshot people show 7", "earshot people rename 7 Ruth", "earshot people merge 3 7",
                   "earshot people split 7 12", "earshot people list --json"],
        subcommands: [PeopleListCommand.command, PeopleShowCommand.command, PeopleRenameCommand.command, PeopleMergeCommand.command, PeopleSplitCommand.command, PeopleForgetCommand.command])

    static func personID(_ text: String?, _ args: ParsedArguments) throws -> Int {
        guard let text else { throw UsageError(message: "give a person's id (earshot people list shows them)", path: args.path) }
        guard let id = Int(text), id > 0 else { throw UsageError(message: "'\(text)' is not a person's id", path: args.path) }
        return id
    }

    /// "Ruth (7)" or "Voice 7": how a line names someone.
    static func shown(_ person: Person) -> String {
        ShownText.escaped(person.name.map { "\($0) (\(person.id))" } ?? person.displayName)
    }

    static func renamed(_ notes: [Int], name: String) {
        print(notes.isEmpty ? "no note's labels changed"
            : "\(ShownText.escaped(name)) now in note(s) \(notes.map(String.init).joined(separator: ", ")); their summaries are "
                + "written again by `earshot notes process` (or a running `earshot serve`)")
    }
}

enum PeopleListCommand {
    static let command = Command(
        name: "list",
        abstract: "Everyone heard in the notes, the most notes first.",
        options: [Option(name: "json", value: nil, help: "Print them as JSON (id, name or null, notes, seconds, last_heard, appearances).")],
        examples: ["earshot people list", "earshot people list --json"],
        run: run)

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        let people = try await NotesCommand.readableLibrary().people()
        if args.flag("json") {
            try JSONOutput.document(people)
            return 0
        }
        if people.isEmpty { print("nobody yet: people are found when notes with speech are transcribed (earshot notes process)") }
        for person in people {
            let heard = person.lastHeard.map { "  last heard \(NotesExporter.dateText($0))" } ?? ""
            print(String(format: "%5d  %@  %d note(s), %@ of speech%@", person.id, PeopleCommand.shown(person) as NSString,
                         person.notes.count, NotesExporter.durationText(person.seconds) as NSString, heard as NSString))
        }
        return 0
    }
}

enum PeopleShowCommand {
    static let command = Command(
        name: "show",
        abstract: "One person: each note they are heard in, under which label, for how long.",
        usage: "<id> [--json]",
        options: [Option(name: "json", value: nil, help: "Print the person as JSON.")],
        examples: ["earshot people show 7", "earshot people show 7 --json"],
        run: run)

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        let id = try PeopleCommand.personID(args.positionals.first, args)
        let library = try NotesCommand.readableLibrary()
        let person = try await library.person(id)
        if args.flag("json") {
            try JSONOutput.document(person)
            return 0
        }
        print(PeopleCommand.shown(person))
        for appearance in person.appearances {
            let title = (try? await library.note(appearance.note).displayTitle) ?? ""
            print(ShownText.escaped(String(format: "  note %d  %@  as %@  %@", appearance.note, NotesExporter.durationText(appearance.seconds),
                                           appearance.label, title)))
        }
        return 0
    }
}

enum PeopleRenameCommand {
    static let command = Command(
        name: "rename",
        abstract: "Name a person in every note they are heard in (a name someone else has makes the two one person).",
        usage: "<id> <name> [--enroll]",
        options: [Option(name: "enroll", value: nil,
                         help: "Also enrol them from their speech in the notes: live lines, verify and identify know them too.")],
        examples: ["earshot people rename 7 Ruth", "earshot people rename 7 \"Ruth Jones\"", "earshot people rename 7 Ruth --enroll"],
        run: run)

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        let id = try PeopleCommand.personID(args.positionals.first, args)
        guard args.positionals.count == 2 else { throw UsageError(message: "give the person's id and their name", path: args.path) }
        let name = args.positionals[1].trimmingCharacters(in: .whitespacesAndNewlines)
        let library = try NotesLibrary()
        let named = try await library.namePerson(id, as: name)
        PeopleCommand.renamed(named.notes, name: named.person.displayName)  // said before enrolling, which may fail
        if args.flag("enroll") {
            let enrolled = try await library.enrollPerson(named.person.id, voices: try VoiceID())
            print("enrolled \(enrolled.name): \(enrolled.clips) clips, \(String(format: "%.1f", enrolled.speechSeconds)) s of speech")
        }
        return 0
    }
}

enum PeopleMergeCommand {
    static let command = Command(
        name: "merge",
        abstract: "Say two people are one: the second's voices become the first's, under the first's name (or else the second's).",
        usage: "<id> <other id>",
        examples: ["earshot people merge 3 7"],
        run: run)

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        guard args.positionals.count == 2 else { throw UsageError(message: "give the two people's ids", path: args.path) }
        let id = try PeopleCommand.personID(args.positionals[0], args), other = try PeopleCommand.personID(args.positionals[1], args)
        let library = try NotesLibrary()
        let notes = try await library.mergePeople(id, with: other)
        let person = try await library.person(id)
        print("\(PeopleCommand.shown(person)) is heard in \(person.notes.count) note(s)")
        if person.name != nil { PeopleCommand.renamed(notes, name: person.displayName) }
        return 0
    }
}

enum PeopleSplitCommand {
    static let command = Command(
        name: "split",
        abstract: "Say a person's voice in one note is someone else: it becomes a new unnamed person (numbered again in that note).",
        usage: "<id> <note id>",
        examples: ["earshot people split 7 12"],
        run: run)

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        guard args.positionals.count == 2 else { throw UsageError(message: "give the person's id and the note's id", path: args.path) }
        let id = try PeopleCommand.personID(args.positionals[0], args)
        let note = try NotesCommand.noteID(args.positionals[1], args)
        let library = try NotesLibrary()
        let before = try await library.person(id)
        let other = try await library.person(try await library.splitPerson(id, note: note))
        print("note \(note)'s voice is now \(PeopleCommand.shown(other)), no longer \(PeopleCommand.shown(before))"
              + (before.name == nil ? "" : "; its summary is written again by `earshot notes process` (or a running `earshot serve`)"))
        return 0
    }
}

enum PeopleForgetCommand {
    static let command = Command(
        name: "forget",
        abstract: "Forget a person: their voiceprints and name (and enrolled voice) are deleted from every note; --redact removes what they said too.",
        usage: "<id> [--redact] [--yes]",
        options: [
            Option(name: "redact", value: nil,
                   help: "Also silence their speech in the recordings and put [removed] in its place in transcripts, search and exports; summaries are written again."),
            Option(name: "yes", value: nil, help: "Do it without asking (needed when standard input is not a terminal)."),
        ],
        examples: ["earshot people forget 7", "earshot people forget 7 --redact", "earshot people forget 7 --redact --yes"],
        run: run)

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        let id = try PeopleCommand.personID(args.positionals.first, args)
        let library = try NotesLibrary()
        let person = try await library.person(id)
        let redact = args.flag("redact")
        if !args.flag("yes") {
            guard isatty(0) == 1 else {
                throw UsageError(message: "forgetting cannot be undone: give --yes to confirm (standard input is not a terminal)", path: args.path)
            }
            let what = redact ? "their voiceprints, their name and everything they said (silenced in the recordings, [removed] in the transcripts)"
                : "their voiceprints and their name"
            StandardError.write("Forget \(PeopleCommand.shown(person)), heard in \(person.notes.count) note(s): \(what)? This cannot be undone. "
                                + "Type \(id) to confirm: ")
            guard readLine()?.trimmingCharacters(in: .whitespaces) == String(id) else {
                print("nothing was changed")
                return 1
            }
        }
        let forgotten = try await library.forgetPerson(id, redact: redact)
        let notes = forgotten.notes.map(String.init).joined(separator: ", ")
        print("forgot \(PeopleCommand.shown(person))" + (forgotten.notes.isEmpty ? "" : " in note(s) \(notes)")
              + (redact ? String(format: "; %.1f s of their speech silenced and removed from the transcripts", forgotten.silencedSeconds) : "")
              + "; summaries are written again by `earshot notes process` (or a running `earshot serve`)")
        return 0
    }
}
