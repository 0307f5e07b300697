import EarshotCore
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
        a block at a time, so a two-hour file needs no more memory than a minute.
        """,
        options: SpeechOptions.all + [
            Option(name: "format", value: "fmt", help: "txt (default), srt, vtt or json."),
            Option(name: "json", value: nil, help: "Same as --format json."),
            Option(name: "words", value: nil, help: "Every word with its time: in JSON, and subtitle cues timed by their words."),
            Option(name: "max-words", value: "n", help: "Subtitles with --words: at most n words per cue."),
            Option(name: "max-line-width", value: "n", help: "Subtitles with --words: at most n characters per cue."),
            Option(name: "highlight-words", value: nil, help: "WebVTT with --words: time each word in its cue (<c> tags)."),
            Option(name: "speakers", value: nil, help: "Who said what: segments and words labelled by speaker (enrolled names)."),
            Option(name: "num-speakers", value: "n", help: "With --speakers: the number of speakers, when known."),
            Option(name: "output", value: "dir", help: "Write <name>.<fmt> per input into this folder instead of stdout."),
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
        let transcriber = try Transcriber.shared(speech)
        let diarizer = speakers ? try Diarizer() : nil
        var failures = 0
        for path in args.positionals {
            do {
                // drawn only once the work has taken a second, so short files never flash a bar
                let bar = ProgressBar(label: (path as NSString).lastPathComponent, total: 1,
                                      enabled: StandardError.isTerminal && !args.flag("no-progress"), after: 1)
                let started = Date()
                var transcript: Transcript
                if let diarizer {
                    // standard input is read twice (words, then voices): from one private copy
                    let copy = path == "-" ? try AudioFileStream.copyStandardInput() : nil
                    defer { copy.map { try? FileManager.default.removeItem(at: $0) } }
                    let file = copy?.path ?? path
                    transcript = try await transcriber.transcribe(file: file, source: path) { bar.update($0 * 0.8) }
                    let voices = try diarizer.diarize(file: file, options: Diarizer.Options(numSpeakers: numSpeakers)) { read, total in
                        if let total, total > 0 { bar.update(0.8 + 0.2 * min(1, read / total)) }
                    }
                    transcript = transcript.labelled(by: voices)
                    if !args.flag("words") { for i in transcript.segments.indices { transcript.segments[i].words = nil } }
                } else {
                    transcript = try await transcriber.transcribe(file: path) { bar.update($0) }
                }
                bar.finish()
                let elapsed = Date().timeIntervalSince(started)
                let writer = format.writer(layout: layout)
                try output.emit(writer.render(transcript), for: path, fileExtension: writer.fileExtension, isJSON: format == .json)
                if StandardError.isTerminal {
                    StandardError.write(String(format: "%@: %.1f s of audio in %.1f s (%.1f× real time)\n",
                                               path, transcript.duration, elapsed, transcript.duration / max(elapsed, 1e-6)))
                }
            } catch let error as AudioError {
                failures += 1
                CommandRunner.fail(error)
            }
        }
        output.finish()
        return failures == 0 ? 0 : 1
    }
}
