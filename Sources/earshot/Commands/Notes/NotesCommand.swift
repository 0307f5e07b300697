import EarshotCore
import EarshotLanguage
import EarshotNotes
import EarshotSpeech
import Foundation

/// `earshot notes ...`: voice notes saved at once, then transcribed, titled, summarised and indexed by a
/// durable background pipeline; searchable by words and by meaning; exportable.
enum NotesCommand {
    static let command = Command(
        name: "notes",
        abstract: "Voice notes: save recordings, transcribe and summarise them locally, search, export.",
        discussion: """
        Notes live in EARSHOT_HOME/notes (an SQLite database and the recordings). `add` saves a note and
        returns at once; its stages (transcribe, summarise, embed) run in `notes process`, in `add --wait`,
        or in a running app. A stage interrupted at any point runs again on the next start; a failed stage
        keeps its error until `notes retry`.
        """,
        examples: [
            "earshot notes seed --wait",
            "earshot notes add memo.m4a --tag work",
            "earshot notes import ~/Phone/Recordings",
            "earshot notes process",
            "earshot notes list",
            "earshot notes search \"cafe\"",
            "earshot notes ask \"What did we decide about the booth budget?\"",
            "earshot notes export --all --format md -o exported/",
        ],
        subcommands: [NotesAddCommand.command, NotesImportCommand.command, NotesRecordCommand.command, NotesProcessCommand.command, NotesRetryCommand.command,
                      NotesListCommand.command, NotesShowCommand.command, NotesSearchCommand.command, NotesAskCommand.command, NotesEditCommand.command,
                      NotesRenameSpeakerCommand.command, NotesActionsCommand.command, NotesDoneCommand.command, NotesDeleteCommand.command, NotesExportCommand.command,
                      NotesSeedCommand.command, NotesRepairCommand.command, NotesTemplateCommand.command])

    /// What a new note can be given, by `add` and `import` alike.
    static let newNoteOptions = [
        Option(name: "tag", value: "tags", help: "Comma-separated tags for the new notes."),
        Option(name: "speakers", value: "n", help: "How many people speak in each recording, when you know (else the voices are counted)."),
        Option(name: "template", value: "name", help: "Summary template (meeting, lecture, call…; `notes template list`; default memo)."),
    ]

    static let pipelineOptions = [
        Option(name: "llm", value: "model", help: "Language model for titles and summaries: default (1.5B) or small (135M)."),
        Option(name: "model", value: "name", help: "Whisper model for transcription: tiny.en (default) or base."),
        Option(name: "threads", value: "n", help: "CPU threads for the models (default 2)."),
    ]

    /// The notes library with the models chosen by the pipeline options (checked before anything is stored).
    static func library(_ args: ParsedArguments) throws -> NotesLibrary {
        var options = NotesPipeline.Options()
        if let llm = args.value("llm") { options.languageModel = try LanguageModelChoice(named: llm) }
        if let model = args.value("model") { options.whisper = try WhisperModel(named: model) }
        options.threads = try args.int("threads", default: 2, range: 1...64)
        return try NotesLibrary(options: options)
    }

    /// The notes library for reading: a damaged database still shows what can be read, with a warning.
    static func readableLibrary() throws -> NotesLibrary {
        let library = try NotesLibrary()
        if let damage = library.damage {
            StandardError.write("warning: \(damage); showing what can still be read (read-only): "
                + "run `earshot notes repair` to rebuild the notes from their recordings\n")
        }
        return library
    }

    static func noteID(_ text: String?, _ args: ParsedArguments) throws -> Int {
        guard let text else { throw UsageError(message: "give a note id (earshot notes list shows them)", path: args.path) }
        guard let id = Int(text), id > 0 else { throw UsageError(message: "'\(text)' is not a note id", path: args.path) }
        return id
    }

    /// The person a `--person` option names (a name, or an id from `earshot people list`), or nil without one.
    static func person(_ text: String?, in library: NotesLibrary, _ args: ParsedArguments) async throws -> Int? {
        guard let who = text?.trimmingCharacters(in: .whitespacesAndNewlines) else { return nil }
        if let id = Int(who) { return try await library.person(id).id }
        guard let found = try await library.person(named: who) else {
            throw UsageError(message: "nobody is named '\(ShownText.escaped(who))' (earshot people list shows who is known)", path: args.path)
        }
        return found.id
    }

    /// A date option's value: a day (YYYY-MM-DD, its start in local time) or a moment (YYYY-MM-DDTHH:MM[:SS]).
    static func date(_ text: String?, option: String, _ args: ParsedArguments) throws -> Date? {
        guard let text else { return nil }
        guard let date = DateText.parse(text) else {
            throw UsageError(message: "--\(option) needs a date like 2026-11-29 (or 2026-11-29T14:30), got '\(ShownText.escaped(text))'", path: args.path)
        }
        return date
    }

    static func tags(_ text: String?) -> [String] {
        (text ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    /// Runs the pipeline with a line per stage on standard error; returns how many stages failed.
    static func runPipeline(_ library: NotesLibrary, only note: Int? = nil) async throws -> Int {
        try await library.process(note: note) { event in
            switch event {
            case let .started(id, stage):
                StandardError.write("note \(id): \(stage.rawValue)…")
            case let .finished(_, _, seconds, detail):
                StandardError.write(String(format: " done (%.1f s; %@)\n", seconds, detail))
            case let .failed(id, _, _, error):
                StandardError.write(" failed: \(error)\n  (once that is fixed: earshot notes retry \(id))\n")
            case let .languageModelMissing(choice):
                StandardError.write("\nthe \(choice.rawValue) language model is not installed: notes get key-word titles and no summary "
                                    + "(run `\(ModelStore.installCommand)` to install it)\n")
            }
        }.failed
    }
}
