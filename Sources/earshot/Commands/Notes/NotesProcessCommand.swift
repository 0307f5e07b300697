import EarshotCore
import EarshotNotes
import Foundation

enum NotesProcessCommand {
    static let command = Command(
        name: "process",
        abstract: "Run the notes' pending stages: transcribe, then title/summary/action items, then embed.",
        discussion: """
        Several `process` commands may run at once: each stage is claimed by one of them. A stage left
        half-done by a process that was killed is run again; results appear whole or not at all.
        """,
        options: NotesCommand.pipelineOptions,
        examples: ["earshot notes process", "earshot notes process --llm small"],
        run: run)

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        let library = try NotesCommand.library(args)
        let failures = try await NotesCommand.runPipeline(library)
        let waiting = try await library.list().filter { !$0.stages.allSatisfy { $0.state == .done } }
        print(waiting.isEmpty ? "all notes are ready" : "\(waiting.count) note(s) not ready: see `earshot notes list`")
        return failures > 0 ? 1 : 0
    }
}

enum NotesRetryCommand {
    static let command = Command(
        name: "retry",
        abstract: "Run a note's failed stages again (or, with --stage, that stage and the ones after it).",
        usage: "<id> [--stage transcribe|summarise|embed]",
        options: [Option(name: "stage", value: "name", help: "Run this stage and the later ones again, even if done (e.g. summarise with --llm).")]
            + NotesCommand.pipelineOptions,
        examples: ["earshot notes retry 12", "earshot notes retry 12 --stage summarise --llm small"],
        run: run)

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        let id = try NotesCommand.noteID(args.positionals.first, args)
        let library = try NotesCommand.library(args)
        let stage: NoteStage? = args.value("stage") == nil ? nil : try args.choice("stage", default: NoteStage.transcribe)
        let queued = try await library.retry(id, from: stage)
        print(queued == 0 ? "note \(id) has no failed stage" : "note \(id): \(queued) stage(s) queued again")
        return try await NotesCommand.runPipeline(library, only: id) > 0 ? 1 : 0
    }
}
