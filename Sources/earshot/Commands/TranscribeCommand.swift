import EarshotCore
import EarshotNotes
import EarshotSpeech
import EarshotVoice
import Foundation

enum TranscribeCommand {
    static let command = Command(
        name: "transcribe",
        abstract: "Turn recordings of any length and format into text, subtitles or JSON.",
        usage: "[options] <file>... | -",
        discussion: """
        Speech is found with a voice-activity detector and each stretch is read by Whisper, so files of any
        length work and silence yields no text. WAV, FLAC, Ogg, MP3 and AIFF are read directly; m4a, webm
        and other containers through ffmpeg. '-' reads a whole file from standard input. Recordings are read
        a block at a time, so a two-hour file needs no more memory than a minute. Several files, or the 30 s
        windows of one long file, are read one per thread at once; '--jobs 1' reads one at a time.
        """,
        options: SpeechOptions.recordings + [
            Option(name: "format", value: "fmt", help: "txt (default), srt, vtt or json."),
            Option(name: "json", value: nil, help: "Same as --format json."),
            Option(name: "words", value: nil, help: "Every word with its time: in JSON, and subtitle cues timed by their words."),
            Option(name: "max-words", value: "n", help: "Subtitles with --words: at most n words per cue."),
            Option(name: "max-line-width", value: "n", help: "Subtitles with --words: at most n characters per cue."),
            Option(name: "highlight-words", value: nil, help: "WebVTT with --words: time each word in its cue (<c> tags)."),
            Option(name: "speakers", value: nil, help: "Who said what: segments and words labelled by speaker (enrolled names)."),
            Option(name: "num-speakers", value: "n", help: "With --speakers: the number of speakers, when known."),
            Option(name: "output", value: "dir", help: "Write <name>.<fmt> per input into this folder instead of stdout."),
            Option(name: "jobs", value: "n", help: "Files (or one file's 30 s windows) read at once (default: one per thread)."),
            Option(name: "no-progress", value: nil, help: "Hide the progress bar shown on a terminal."),
        ],
        examples: [
            "earshot transcribe meeting.m4a",
            "earshot transcribe --format srt --output subs/ talk1.wav talk2.flac",
            "earshot transcribe --model base --language auto interview.mp3",
            "earshot transcribe --words --json memo.wav",
            "earshot transcribe --words --format vtt --max-words 6 --highlight-words talk.mp3",
            "earshot transcribe --speakers meeting.m4a                 # Ruth: I'll send the spreadsheet.",
            "earshot transcribe --model base --beam-size 5 --prompt 'Anneliese, Kubernetes' standup.m4a",
            "cat memo.ogg | earshot transcribe --json -",
            "earshot transcribe --json --output texts/ recordings/*.flac   # one file per thread at once",
        ],
        run: run)

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        var output = try DocumentOutput(args)
        var speech = try SpeechOptions.read(args)
        let speakers = args.flag("speakers")
        // speakers are given word by word, so a segment that changes speaker is split where it does
        speech.words = args.flag("words") || speakers
        let numSpeakers = try args.optionalInt("num-speakers", range: 1...Diarizer.maxSpeakers)
        if numSpeakers != nil && !speakers { throw UsageError(message: "--num-speakers needs --speakers", path: args.path) }
        let layout = CueLayout(maxWords: try args.optionalInt("max-words", range: 1...1000),
                               maxCharacters: try args.optionalInt("max-line-width", range: 1...10_000),
                               highlightWords: args.flag("highlight-words"))
        if !speech.words && (layout.maxWords != nil || layout.maxCharacters != nil || layout.highlightWords) {
            throw UsageError(message: "--max-words, --max-line-width and --highlight-words need --words", path: args.path)
        }
        let format = try DocumentOutput.format(args, default: TranscriptFormat.txt, json: .json)
        let jobs = try filesAtOnce(args, threads: speech.threads, speakers: speakers)
        let showProgress = StandardError.isTerminal && !args.flag("no-progress")
        var failures = 0
        // each document goes out in the order the files were given, whichever was read first
        func emit(_ path: String, _ outcome: Result<Read, Error>) throws {
            switch outcome {
            case .success(let read):
                let writer = format.writer(layout: layout)
                try output.emit(writer.render(read.transcript), for: path, fileExtension: writer.fileExtension, isJSON: format == .json)
                if StandardError.isTerminal {
                    StandardError.write(String(format: "%@: %.1f s of audio in %.1f s (%.1f× real time)\n", path, read.transcript.duration,
                                               read.seconds, read.transcript.duration / max(read.seconds, 1e-6)))
                }
            case .failure(let error as AudioError):
                failures += 1
                CommandRunner.fail(error)
            case .failure(let error):
                throw error
            }
        }
        if jobs > 1 {
            let lanes = try Transcriber.lanes(speech, count: jobs)
            try await readInOrder(args.positionals, lanes: lanes, progress: showProgress, emit: emit)
        } else {
            let windows = try FilesAtOnce.windows(args, threads: speech.threads, files: args.positionals)
            let transcriber = try Transcriber.shared(speech, windowsAtOnce: windows)
            let diarizer = speakers ? try Diarizer() : nil
            // the people named in the notes are named here too, as enrolled people are
            var diarization = Diarizer.Options(numSpeakers: numSpeakers)
            if speakers { diarization.voices = NotesLibrary.namedVoices() }
            for path in args.positionals {
                // drawn only once the work has taken a second, so short files never flash a bar
                let bar = ProgressBar(label: (path as NSString).lastPathComponent, total: 1, enabled: showProgress, after: 1)
                let result = await outcome {
                    try await read(path, with: transcriber, diarizer: diarizer, diarization: diarization, keepWords: args.flag("words")) { bar.update($0) }
                }
                bar.finish()
                try emit(path, result)
            }
        }
        output.finish()
        return failures == 0 ? 0 : 1
    }

    /// What `body` gave or threw.
    static func outcome(_ body: () async throws -> Read) async -> Result<Read, Error> {
        do { return .success(try await body()) } catch { return .failure(error) }
    }

    /// A file's transcript and the seconds it took.
    struct Read: Sendable {
        var transcript: Transcript
        var seconds: Double
    }

    /// How many files are read at once (`FilesAtOnce`); with `--speakers` one at a time.
    static func filesAtOnce(_ args: ParsedArguments, threads: Int, speakers: Bool) throws -> Int {
        guard speakers else { return try FilesAtOnce.count(args, threads: threads, files: args.positionals.count) }
        if args.positionals.count > 1, try args.optionalInt("jobs", range: 1...64) ?? 1 > 1 {
            throw UsageError(message: "--speakers reads one file at a time: leave out --jobs", path: args.path)
        }
        return 1
    }

    /// One file read: its transcript, labelled by speaker with `diarizer` (run with `diarization`).
    static func read(_ path: String, with transcriber: Transcriber, diarizer: Diarizer?, diarization: Diarizer.Options = .init(), keepWords: Bool,
                     progress: @escaping @Sendable (Double) -> Void) async throws -> Read {
        let started = Date()
        guard let diarizer else {
            let transcript = try await transcriber.transcribe(file: path, progress: progress)
            return Read(transcript: transcript, seconds: Date().timeIntervalSince(started))
        }
        // standard input is read twice (words, then voices): from one private copy
        let copy = path == "-" ? try AudioFileStream.copyStandardInput() : nil
        defer { copy.map { try? FileManager.default.removeItem(at: $0) } }
        let file = copy?.path ?? path
        var transcript = try await transcriber.transcribe(file: file, source: path) { progress($0 * 0.8) }
        let voices = try diarizer.diarize(file: file, options: diarization) { read, total in
            if let total, total > 0 { progress(0.8 + 0.2 * min(1, read / total)) }
        }
        transcript = transcript.labelled(by: voices)
        if !keepWords { for i in transcript.segments.indices { transcript.segments[i].words = nil } }
        return Read(transcript: transcript, seconds: Date().timeIntervalSince(started))
    }

    /// Reads `paths` on `lanes` at once (`InOrderLanes`) and hands each outcome to `emit` in the order of `paths`.
    /// One bar counts the files.
    static func readInOrder(_ paths: [String], lanes: [Transcriber], progress: Bool,
                            emit: (String, Result<Read, Error>) throws -> Void) async throws {
        let bar = ProgressBar(label: "\(paths.count) files", total: Double(paths.count), enabled: progress, after: 1)
        let fractions = Locked<[Int: Double]>([:])  // of the files being read, and 1 for each file read
        try await InOrderLanes.run(count: paths.count, lanes: lanes.count, work: { index, lane in
            let result = await outcome {
                try await read(paths[index], with: lanes[lane], diarizer: nil, keepWords: true) { fraction in
                    bar.update(fractions.withLock { $0[index] = fraction; return $0.values.reduce(0, +) })
                }
            }
            bar.update(fractions.withLock { $0[index] = 1; return $0.values.reduce(0, +) })
            return result
        }, emit: { index, result in try emit(paths[index], result) })
        bar.finish()
    }
}
