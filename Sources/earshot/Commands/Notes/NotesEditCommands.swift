import EarshotCore
import EarshotNotes
import EarshotVoice
import Foundation

enum NotesEditCommand {
    static let command = Command(
        name: "edit",
        abstract: "Change a note's title, tags or summary template, or correct its transcript (a segment's words or speaker; undo the last).",
        usage: "<id> [--title text] [--tag t1,t2] [--untag t] [--template name] | <id> --segment N [--text words] [--speaker name] [--rewrite-summary] | <id> --undo | <id> --corrections [--json]",
        discussion: """
        A title set here is kept when the summary is rewritten. --template writes the note's summary again with
        another template (`earshot notes template list`), in `notes process` or a running `earshot serve`. A corrected segment keeps its times; the note's words
        search finds the corrected words at once, and meaning search once `earshot notes process` (or a running
        `earshot serve`) has embedded it again — with --rewrite-summary, after its title, summary and action items are
        written again. `earshot notes show ID` numbers the segments; every correction is kept, and --undo takes back the last.
        """,
        options: [
            Option(name: "title", value: "text", help: "New title."),
            Option(name: "tag", value: "tags", help: "Comma-separated tags to add."),
            Option(name: "untag", value: "tags", help: "Comma-separated tags to remove."),
            Option(name: "template", value: "name", help: "Write the summary again with this template (meeting, lecture, yours…)."),
            Option(name: "segment", value: "n", help: "The segment to correct, numbered from 1 as `notes show` numbers them."),
            Option(name: "text", value: "words", help: "With --segment: what was really said."),
            Option(name: "speaker", value: "name", help: "With --segment: who really said it (a name, or a voice of the note)."),
            Option(name: "rewrite-summary", value: nil, help: "With --segment: write the title, summary and action items again."),
            Option(name: "undo", value: nil, help: "Undo the note's last correction."),
            Option(name: "corrections", value: nil, help: "List the note's corrections, oldest first."),
            Option(name: "json", value: nil, help: "With --segment, --undo or --corrections: print JSON."),
        ],
        examples: ["earshot notes edit 3 --title \"Launch plan\"", "earshot notes edit 3 --tag work,urgent --untag home",
                   "earshot notes edit 3 --template meeting",
                   "earshot notes edit 3 --segment 4 --text \"Send the deck to Priya by Friday.\"",
                   "earshot notes edit 3 --segment 5 --speaker Ruth", "earshot notes edit 3 --undo", "earshot notes edit 3 --corrections"],
        run: run)

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        let id = try NotesCommand.noteID(args.positionals.first, args)
        if args.value("segment") != nil || args.flag("undo") || args.flag("corrections") { return try await correct(id, args) }
        if args.value("text") != nil || args.value("speaker") != nil || args.flag("rewrite-summary") {
            throw UsageError(message: "--text, --speaker and --rewrite-summary correct a segment: give --segment N", path: args.path)
        }
        let title = args.value("title")?.trimmingCharacters(in: .whitespacesAndNewlines)
        if let title, title.isEmpty { throw UsageError(message: "--title cannot be empty", path: args.path) }
        let template = args.value("template")
        guard title != nil || args.value("tag") != nil || args.value("untag") != nil || template != nil else {
            throw UsageError(message: "give --title, --tag, --untag or --template (or --segment N to correct the transcript)", path: args.path)
        }
        let library = try NotesLibrary()
        if let template { try await library.setTemplate(of: id, to: template) }
        if title != nil || args.value("tag") != nil || args.value("untag") != nil {
            try await library.edit(id, title: title, addTags: NotesCommand.tags(args.value("tag")), removeTags: NotesCommand.tags(args.value("untag")))
        }
        print("note \(id) updated" + (template == nil ? "" : "; its summary is written again as a \(try await library.note(id).template) "
            + "by `earshot notes process` (or a running `earshot serve`)"))
        return 0
    }

    /// `--segment`, `--undo` or `--corrections`: the transcript corrected, its last correction undone, or its corrections.
    private static func correct(_ id: Int, _ args: ParsedArguments) async throws -> Int32 {
        let modes = [args.value("segment") != nil, args.flag("undo"), args.flag("corrections")].filter { $0 }.count
        if modes > 1 || args.value("title") != nil || args.value("tag") != nil || args.value("untag") != nil || args.value("template") != nil {
            throw UsageError(message: "--segment, --undo and --corrections go alone (not with each other, --title, tags or --template)", path: args.path)
        }
        let library = try NotesLibrary()
        if args.flag("corrections") {
            let corrections = try await library.corrections(of: id)
            if args.flag("json") { try JSONOutput.document(corrections); return 0 }
            if corrections.isEmpty { print("note \(id) has no corrections") }
            for c in corrections {
                print("\(NotesExporter.dateText(c.at))  segment \(c.segment): \(describe(c))")
            }
            return 0
        }
        if args.flag("undo") {
            guard let undone = try await library.undoCorrection(id) else {
                print("note \(id) has no correction to undo")
                return 0
            }
            if args.flag("json") { try JSONOutput.document(undone); return 0 }
            print("note \(id), segment \(undone.segment) is again: \(ShownText.escaped(undone.before.text))")
            return 0
        }
        let segment = try args.int("segment", default: 1, range: 1...1_000_000)
        guard args.value("text") != nil || args.value("speaker") != nil else {
            throw UsageError(message: "give --text (what was said) and/or --speaker (who said it) for segment \(segment)", path: args.path)
        }
        let correction = try await library.correct(id, segment: segment, text: args.value("text"), speaker: args.value("speaker"),
                                                   rewriteSummary: args.flag("rewrite-summary"))
        if args.flag("json") { try JSONOutput.document(correction); return 0 }
        print("note \(id), segment \(segment): \(describe(correction))")
        print(args.flag("rewrite-summary") ? "its title, summary and action items are written again by `earshot notes process` (or a running `earshot serve`)"
              : "its summary is as it was: add --rewrite-summary to write it again from the corrected transcript")
        return 0
    }

    private static func describe(_ c: Correction) -> String {
        var parts: [String] = []
        if c.before.text != c.after.text { parts.append("\"\(ShownText.escaped(c.before.text))\" → \"\(ShownText.escaped(c.after.text))\"") }
        if c.before.speaker != c.after.speaker {
            parts.append("said by \(ShownText.escaped(c.after.speaker ?? "?")) (was \(ShownText.escaped(c.before.speaker ?? "unlabelled")))")
        }
        return parts.isEmpty ? "unchanged" : parts.joined(separator: "; ")
    }
}

enum NotesRenameSpeakerCommand {
    static let command = Command(
        name: "rename-speaker",
        abstract: "Name a voice of a note (SPEAKER_02 is Ruth); the summary is written again with the name.",
        usage: "<id> <speaker> <name> [--enroll]",
        options: [
            Option(name: "enroll", value: nil,
                   help: "Also enrol the voice under that name from what it says in the note (2 s or more), so later notes name it."),
        ],
        examples: ["earshot notes rename-speaker 3 SPEAKER_02 Ruth", "earshot notes rename-speaker 3 SPEAKER_02 Ruth --enroll",
                   "earshot notes rename-speaker 3 Ruth \"Ruth Jones\""],
        run: run)

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        let id = try NotesCommand.noteID(args.positionals.first, args)
        guard args.positionals.count == 3 else {
            throw UsageError(message: "give the note, the speaker as the note shows it, and the new name", path: args.path)
        }
        let (speaker, name) = (args.positionals[1], args.positionals[2].trimmingCharacters(in: .whitespacesAndNewlines))
        let library = try NotesLibrary()
        if args.flag("enroll") {
            let enrolled = try await library.enrollSpeaker(id, speaker: speaker, as: name, voices: try VoiceID())
            print("enrolled \(enrolled.name) from note \(id): \(enrolled.clips) clips, \(String(format: "%.1f", enrolled.speechSeconds)) s of speech")
        } else {
            try await library.renameSpeaker(id, from: speaker, to: name)
        }
        print("note \(id): \(speaker) is now \(name); the summary is written again by `earshot notes process` (or a running `earshot serve`)")
        return 0
    }
}

enum NotesDeleteCommand {
    static let command = Command(
        name: "delete",
        abstract: "Delete a note and its recording.",
        usage: "<id>",
        examples: ["earshot notes delete 3"],
        run: run)

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        let id = try NotesCommand.noteID(args.positionals.first, args)
        try await NotesLibrary().delete(id)
        print("note \(id) deleted")
        return 0
    }
}

enum NotesExportCommand {
    static let command = Command(
        name: "export",
        abstract: "Write notes to files: Markdown, text, SubRip, WebVTT or JSON.",
        usage: "<id>... | --all  -o <dir> [--format md|txt|srt|vtt|json]",
        options: [
            Option(name: "all", value: nil, help: "Export every note."),
            Option(name: "format", value: "fmt", help: "md (default), txt, srt, vtt or json."),
            Option(name: "output", value: "dir", help: "Folder to write into (created if needed).", short: "o"),
        ],
        examples: ["earshot notes export 3 -o out/", "earshot notes export --all --format srt -o subtitles/"],
        run: run)

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        guard let dir = args.value("output") else { throw UsageError(message: "give a folder with -o", path: args.path) }
        let format: NotesExporter.Format = try args.choice("format", default: .md)
        let library = try NotesCommand.readableLibrary()
        let ids: [Int]
        if args.flag("all") {
            guard args.positionals.isEmpty else { throw UsageError(message: "give ids or --all, not both", path: args.path) }
            ids = try await library.list().map(\.id)
        } else {
            guard !args.positionals.isEmpty else { throw UsageError(message: "give note ids or --all", path: args.path) }
            ids = try args.positionals.map { try NotesCommand.noteID($0, args) }
        }
        for id in ids {
            print(try await library.export(id, format: format, to: URL(fileURLWithPath: dir)).path)
        }
        let notes = ids
        if notes.isEmpty { print("no notes to export") }
        return 0
    }
}

enum NotesSeedCommand {
    static let command = Command(
        name: "seed",
        abstract: "Add a handful of sample notes spoken by espeak-ng, to see what Earshot does.",
        options: [Option(name: "wait", value: nil, help: "Transcribe and summarise them now.")] + NotesCommand.pipelineOptions,
        examples: ["earshot notes seed --wait", "earshot notes seed --wait --llm small"],
        run: run)

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        let library = try NotesCommand.library(args)
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("earshot-seed-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        var ids: [Int] = []
        for sample in SampleNotes.samples {
            let url = dir.appendingPathComponent(sample.name)
            try SampleNotes.synthesise(sample, to: url)
            let id = try await library.add(file: url.path, tags: sample.tags).id
            ids.append(id)
            print("note \(id): saved sample \(sample.name)")
        }
        var failures = 0
        if args.flag("wait") {
            for id in ids { failures += try await NotesCommand.runPipeline(library, only: id) }
        } else {
            print("run `earshot notes process` to transcribe and summarise them")
        }
        return failures > 0 ? 1 : 0
    }
}
