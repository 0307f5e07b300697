import EarshotCore
import EarshotSpeech
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
            Option(name: "output", value: "dir", help: "Write <name>.<fmt> per input into this folder instead of stdout."),
            Option(name: "no-progress", value: nil, help: "Hide the progress bar shown on a terminal."),
        ],
        examples: [
            "earshot transcribe meeting.m4a",
            "earshot transcribe --format srt --output subs/ talk1.wav talk2.flac",
            "earshot transcribe --model base --language auto interview.mp3",
            "cat memo.ogg | earshot transcribe --json -",
        ],
        run: run)

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        guard !args.positionals.isEmpty else {
            throw UsageError(message: "give at least one audio file, or '-' for standard input", path: args.path)
        }
        let speech = try SpeechOptions.read(args)
        if args.flag("json"), let format = args.value("format"), format != "json" {
            throw UsageError(message: "--json and --format \(format) ask for two formats: give one", path: args.path)
        }
        let format: TranscriptFormat = args.flag("json") ? .json : try args.choice("format", default: .txt)
        let outputDir = args.value("output")
        if let dir = outputDir {
            do { try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true) } catch {
                throw UsageError(message: "cannot create output folder \(dir): \(error.localizedDescription)", path: args.path)
            }
        }
        let transcriber = try Transcriber.shared(speech)
        var failures = 0
        var jsonDocuments: [String] = []
        for path in args.positionals {
            do {
                // drawn only once the work has taken a second, so short files never flash a bar
                let bar = ProgressBar(label: (path as NSString).lastPathComponent, total: 1,
                                      enabled: StandardError.isTerminal && !args.flag("no-progress"), after: 1)
                let started = Date()
                let transcript = try await transcriber.transcribe(file: path) { bar.update($0) }
                bar.finish()
                let elapsed = Date().timeIntervalSince(started)
                let rendered = format.writer.render(transcript)
                if let dir = outputDir {
                    let name = path == "-" ? "stdin" : ((path as NSString).lastPathComponent as NSString).deletingPathExtension
                    let target = URL(fileURLWithPath: dir).appendingPathComponent("\(name).\(format.writer.fileExtension)")
                    try Data(rendered.utf8).write(to: target, options: .atomic)
                    StandardError.write("wrote \(target.path)\n")
                } else if format == .json {
                    jsonDocuments.append(rendered.trimmingCharacters(in: .whitespacesAndNewlines))
                } else {
                    if args.positionals.count > 1 { print("==> \(path) <==") }
                    print(rendered, terminator: "")
                }
                if StandardError.isTerminal {
                    StandardError.write(String(format: "%@: %.1f s of audio in %.1f s (%.1f× real time)\n",
                                               path, transcript.duration, elapsed, transcript.duration / max(elapsed, 1e-6)))
                }
            } catch let error as AudioError {
                failures += 1
                CommandRunner.fail(error)
            }
        }
        if !jsonDocuments.isEmpty {
            print(args.positionals.count > 1 ? "[\n" + jsonDocuments.joined(separator: ",\n") + "\n]" : jsonDocuments[0])
        }
        return failures == 0 ? 0 : 1
    }
}
