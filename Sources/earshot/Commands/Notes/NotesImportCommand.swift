import EarshotCore
import EarshotNotes
import EarshotVoice
import Foundation

enum NotesImportCommand {
    static let command = Command(
        name: "import",
        abstract: "Import recordings made elsewhere (phone memos, meetings): dated when recorded, duplicates skipped.",
        usage: "<folder|file>... [--tag t1,t2] [--speakers N] [--template name] [--wait] [--json]",
        discussion: """
        Folders are searched at every depth for audio files (m4a, mp3, ogg, opus, webm, wav, flac, amr,
        mp4, wma and more; anything ffmpeg reads). Each recording becomes a note dated when it was
        recorded: the time its container says (phones and recorders write one), else the file's
        modification time. A recording whose audio is already in your notes, even renamed or encoded
        again in another format, is skipped and the note it matches is named. A file that cannot be
        read is reported and the rest are imported; the exit code is then 1.
        """,
        options: NotesCommand.newNoteOptions + [
            Option(name: "wait", value: nil, help: "Transcribe, summarise and index the new notes now, before returning."),
            Option(name: "json", value: nil, help: "Print what became of each file as JSON."),
        ] + NotesCommand.pipelineOptions,
        examples: ["earshot notes import ~/Phone/Recordings", "earshot notes import standup.m4a call.amr --tag work --template meeting --wait",
                   "earshot notes import ~/Recordings --json"],
        run: run)

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        guard !args.positionals.isEmpty else { throw UsageError(message: "give one or more folders or audio files", path: args.path) }
        let library = try NotesCommand.library(args)
        let speakers = try args.optionalInt("speakers", range: 1...Diarizer.maxSpeakers)
        let json = args.flag("json")
        let template = args.value("template")
        if let template { _ = try await library.template(named: template) }  // before anything is read
        let bar = ProgressBar(label: "importing", total: 1)
        let results = await library.importRecordings(args.positionals, tags: NotesCommand.tags(args.value("tag")), speakers: speakers,
                                                      template: template) { done, total, file in
            bar.finish()
            switch file.outcome {
            case .imported where !json:
                let when = file.recorded.map { " recorded " + NotesExporter.dateText($0) + (file.dateFrom == .file ? " (file time)" : "") } ?? ""
                print("note \(file.note ?? 0): imported \(file.file)\(when)")
            case .duplicate where !json:
                print("skipped \(file.file): the same audio as note \(file.note ?? 0)")
            case .failed:
                CommandRunner.fail(file.error ?? "\(file.file): not imported")
            default: break
            }
            bar.update(Double(done) / Double(total), detail: "\(done) of \(total)")
        }
        bar.finish()
        let imported = results.filter { $0.outcome == .imported }.compactMap(\.note)
        let skipped = results.filter { $0.outcome == .duplicate }.count, failed = results.filter { $0.outcome == .failed }.count
        var stageFailures = 0
        if json {
            try JSONOutput.document(results)
        } else {
            print("imported \(imported.count), skipped \(skipped) already in your notes, \(failed) could not be read")
        }
        if args.flag("wait") {
            for id in imported { stageFailures += try await NotesCommand.runPipeline(library, only: id) }
        } else if !imported.isEmpty && !json {
            print("run `earshot notes process` to transcribe and summarise (or import with --wait)")
        }
        return failed > 0 || stageFailures > 0 ? 1 : 0
    }
}
