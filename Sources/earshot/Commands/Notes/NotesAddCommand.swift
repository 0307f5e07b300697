import EarshotCore
import EarshotNotes
import EarshotVoice
import Foundation

enum NotesAddCommand {
    static let command = Command(
        name: "add",
        abstract: "Save recordings as notes at once; transcription and summaries follow in the background.",
        usage: "<file>... [--tag t1,t2] [--speakers N] [--template name] [--wait]",
        discussion: """
        Each file is decoded first (anything that is not audio is refused and nothing is stored), copied
        into the store and saved as a note with its stages queued; its id is printed at once. With --wait
        the stages run before the command returns; otherwise `earshot notes process` runs them.
        """,
        options: NotesCommand.newNoteOptions + [
            Option(name: "date", value: "date", help: "When the recordings were made (YYYY-MM-DD or YYYY-MM-DDTHH:MM; default now): the notes' date."),
            Option(name: "wait", value: nil, help: "Run transcription, summary and embedding now, before returning."),
            Option(name: "json", value: nil, help: "Print the new notes as JSON."),
        ] + NotesCommand.pipelineOptions,
        examples: ["earshot notes add memo.m4a", "earshot notes add *.wav --tag work --wait", "earshot notes add standup.m4a --speakers 3 --template meeting --date 2026-11-30T09:30", "earshot notes add idea.ogg --wait --llm small"],
        run: run)

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        guard !args.positionals.isEmpty else { throw UsageError(message: "give one or more audio files", path: args.path) }
        let library = try NotesCommand.library(args)  // options checked before anything is stored
        let speakers = try args.optionalInt("speakers", range: 1...Diarizer.maxSpeakers)
        let recorded = try NotesCommand.date(args.value("date"), option: "date", args)
        let template = args.value("template")
        if let template { _ = try await library.template(named: template) }  // before anything is stored
        var added: [Note] = [], refused = 0
        for path in args.positionals {
            do {
                let tags = NotesCommand.tags(args.value("tag"))
                let note = path == "-" ? try await library.add(data: try AudioFileLoader.standardInput(), name: "stdin", tags: tags, speakers: speakers, recorded: recorded)
                    : try await library.add(file: path, tags: tags, speakers: speakers, recorded: recorded)
                if let template { try await library.setTemplate(of: note.id, to: template, rewrite: false) }
                added.append(note)
                if !args.flag("json") { print("note \(note.id): saved \(path)") }
            } catch let error as NotesError {
                refused += 1
                CommandRunner.fail(error)
            }
        }
        var failures = 0
        if args.flag("wait") {
            for note in added { failures += try await NotesCommand.runPipeline(library, only: note.id) }
        } else if !added.isEmpty && !args.flag("json") {
            print("run `earshot notes process` to transcribe and summarise (or add with --wait)")
        }
        if args.flag("json") {
            var notes: [Note] = []
            for note in added { notes.append(try await library.note(note.id)) }
            try JSONOutput.document(notes.map(\.overview))
        }
        return refused > 0 || failures > 0 ? 1 : 0
    }
}

enum NotesRecordCommand {
    static let command = Command(
        name: "record",
        abstract: "Record a note from the microphone (or raw PCM on stdin) until Enter or Ctrl-C, and save it.",
        usage: "[-] [--tag t] [--wait]",
        discussion: """
        Shows the elapsed time and a level meter. Enter or Ctrl-C ends the recording; what was recorded is
        saved either way (the audio goes to a file under EARSHOT_HOME/notes/recordings as it arrives, so
        even a killed process leaves it). With '-', raw 16 kHz s16le PCM is read from standard input
        until it ends.
        """,
        options: [
            Option(name: "tag", value: "tags", help: "Comma-separated tags for the note."),
            Option(name: "wait", value: nil, help: "Transcribe and summarise before returning."),
            Option(name: "max", value: "seconds", help: "Stop after this long (default 3600)."),
        ] + NotesCommand.pipelineOptions + AudioSourceOptions.all,
        examples: ["earshot notes record", "arecord -q -t raw -f S16_LE -r 16000 -c 1 - | earshot notes record -"],
        run: run)

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        let library = try NotesCommand.library(args)
        let source = try AudioSourceOptions.source(args, argument: args.positionals.first)
        let limit = Double(try args.int("max", default: 3600, range: 1...86_400))
        let stop = StopSignal(watchEnter: args.positionals.first != "-")
        StandardError.write(args.positionals.first == "-" ? "recording from standard input…\n" : "recording: press Enter or Ctrl-C to stop\n")
        let recording: NotesLibrary.Recording
        do {
            recording = try await library.record(from: source, tags: NotesCommand.tags(args.value("tag")), maxSeconds: limit,
                                                 shouldStop: { stop.stopped }) { chunk, seconds in
                StandardError.write("\r  \(NotesExporter.durationText(seconds))  \(LevelMeter.bar(chunk))")
            }
        } catch {
            StandardError.write("\n")
            throw error
        }
        StandardError.write("\n")
        if let problem = recording.interruption {
            StandardError.write("recording stopped: \(problem); saved what was recorded\n")
        }
        print("note \(recording.note.id): saved \(NotesExporter.durationText(recording.note.duration)) of recording")
        if args.flag("wait") { return try await NotesCommand.runPipeline(library, only: recording.note.id) > 0 ? 1 : 0 }
        return 0
    }
}

/// Ends a recording on Ctrl-C (instead of killing the process) or, for the microphone, on Enter.
final class StopSignal: @unchecked Sendable {
    private let lock = NSLock()
    private var flag = false
    private var source: DispatchSourceSignal?
    var stopped: Bool { lock.lock(); defer { lock.unlock() }; return flag }

    init(watchEnter: Bool) {
        signal(SIGINT, SIG_IGN)
        let s = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
        s.setEventHandler { [weak self] in self?.stop() }
        s.resume()
        source = s
        if watchEnter {
            Thread.detachNewThread { [weak self] in
                // a line is Enter; standard input already closed (a script, cron) is not a request to stop
                if readLine() != nil { self?.stop() }
            }
        }
    }

    func stop() { lock.lock(); flag = true; lock.unlock() }
}
