import EarshotCore
import EarshotNotes
import Foundation

enum NotesAddCommand {
    static let command = Command(
        name: "add",
        abstract: "Save recordings as notes at once; transcription and summaries follow in the background.",
        usage: "<file>... [--tag t1,t2] [--wait]",
        discussion: """
        Each file is decoded first (anything that is not audio is refused and nothing is stored), copied
        into the store and saved as a note with its stages queued; its id is printed at once. With --wait
        the stages run before the command returns; otherwise `earshot notes process` runs them.
        """,
        options: [
            Option(name: "tag", value: "tags", help: "Comma-separated tags for the new notes."),
            Option(name: "wait", value: nil, help: "Run transcription, summary and embedding now, before returning."),
            Option(name: "json", value: nil, help: "Print the new notes as JSON."),
        ] + NotesCommand.pipelineOptions,
        examples: ["earshot notes add memo.m4a", "earshot notes add *.wav --tag work --wait", "earshot notes add idea.ogg --wait --llm small"],
        run: run)

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        guard !args.positionals.isEmpty else { throw UsageError(message: "give one or more audio files", path: args.path) }
        let store = try NotesStore()
        let pipeline = try NotesCommand.pipeline(args, store: store)  // options checked before anything is stored
        var added: [Int] = [], refused = 0
        for path in args.positionals {
            do {
                let id = try store.add(path: path, tags: NotesCommand.tags(args.value("tag")))
                added.append(id)
                if !args.flag("json") { print("note \(id): saved \(path)") }
            } catch let error as NotesError {
                refused += 1
                StandardError.write("earshot: error: \(error.localizedDescription)\n")
            }
        }
        var failures = 0
        if args.flag("wait") {
            for id in added { failures += try NotesCommand.runPipeline(pipeline, only: id) }
        } else if !added.isEmpty && !args.flag("json") {
            print("run `earshot notes process` to transcribe and summarise (or add with --wait)")
        }
        if args.flag("json") {
            JSONOutput.document(try added.map { NotesCommand.summaryObject(try store.note($0)) })
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
        let store = try NotesStore()
        let pipeline = try NotesCommand.pipeline(args, store: store)
        let source = try AudioSourceOptions.source(args, argument: args.positionals.first)
        let limit = Double(try args.int("max", default: 3600, range: 1...86_400))
        let dir = store.directory.appendingPathComponent("recordings")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let stamp = ISO8601DateFormatter().string(from: Date()).replacingOccurrences(of: ":", with: "-")
        let file = dir.appendingPathComponent("recording-\(stamp).wav")
        let stop = StopSignal(watchEnter: args.positionals.first != "-")
        StandardError.write(args.positionals.first == "-" ? "recording from standard input…\n" : "recording: press Enter or Ctrl-C to stop\n")
        // each chunk goes to disk as it arrives, so a killed process still leaves its audio
        let recording = try WAVFileWriter(url: file, sampleRate: 16_000)
        var seconds: Double { Double(recording.frames) / 16_000 }
        do {
            for try await chunk in source.chunks(sampleRate: 16_000) {
                try recording.append(chunk)
                StandardError.write("\r  \(NotesExporter.durationText(seconds))  \(LevelMeter.bar(chunk))")
                if stop.stopped || seconds >= limit { break }
            }
        } catch {
            StandardError.write("\n")
            if recording.frames == 0 { try? FileManager.default.removeItem(at: file); throw error }
            StandardError.write("recording stopped: \(error.localizedDescription); saving what was recorded\n")
        }
        StandardError.write("\n")
        try recording.finish()
        guard recording.frames > 0 else {
            try? FileManager.default.removeItem(at: file)
            throw NotesError.notAudio(path: file.path, problem: "nothing was recorded")
        }
        let id = try store.add(path: file.path, tags: NotesCommand.tags(args.value("tag")))
        try? FileManager.default.removeItem(at: file)  // the store has its own copy now
        print("note \(id): saved \(NotesExporter.durationText(seconds)) of recording")
        if args.flag("wait") { return try NotesCommand.runPipeline(pipeline, only: id) > 0 ? 1 : 0 }
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
