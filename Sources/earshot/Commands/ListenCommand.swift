import EarshotCore
import EarshotSpeech
import Foundation

enum ListenCommand {
    static let command = Command(
        name: "listen",
        abstract: "Transcribe live audio, showing partial text while someone speaks and a final line after.",
        usage: "[options] [- | <file>]",
        discussion: """
        With no argument, listens to the default microphone. '-' reads raw PCM from standard input
        (16 kHz mono s16le unless --rate/--sample-format/--channels say otherwise). A file is replayed,
        as fast as possible or at its real pace with --realtime.
        """,
        options: SpeechOptions.all + [
            Option(name: "json", value: nil, help: "One JSON event per line: {\"type\":\"partial\"|\"final\", ...}."),
            Option(name: "realtime", value: nil, help: "Replay a file at real speed (demos, latency checks)."),
            Option(name: "rate", value: "hz", help: "Sample rate of raw standard input (default 16000)."),
            Option(name: "sample-format", value: "fmt", help: "Raw standard input samples: s16le (default) or f32le."),
            Option(name: "channels", value: "n", help: "Channels of raw standard input (default 1)."),
        ],
        examples: [
            "earshot listen",
            "arecord -q -t raw -f S16_LE -r 16000 -c 1 - | earshot listen -",
            "parec --raw --format=s16le --rate=48000 --channels=2 | earshot listen - --rate 48000 --channels 2",
            "earshot listen --realtime --json talk.wav",
        ],
        run: run)

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        guard args.positionals.count <= 1 else {
            throw UsageError(message: "give at most one source: '-' or a file", path: args.path)
        }
        let speech = try SpeechOptions.read(args)
        let source: AudioSource
        switch args.positionals.first {
        case nil: source = MicrophoneSource()
        case "-":
            source = RawPCMSource(rate: try args.int("rate", default: 16_000, range: 1000...384_000),
                                  format: try args.choice("sample-format", default: .s16le),
                                  channels: try args.int("channels", default: 1, range: 1...32))
        case let path?:
            // open it now so a bad file is reported before the model loads
            _ = try AudioFileLoader().load(path: path)
            source = FileReplaySource(path: path, realtime: args.flag("realtime"))
        }
        let transcriber = try LiveTranscriber(model: speech.model, threads: speech.threads, language: speech.language)
        let json = args.flag("json")
        let inPlace = !json && isatty(1) == 1
        if inPlace && args.positionals.isEmpty { StandardError.write("listening… (Ctrl-C to stop)\n") }
        for try await event in transcriber.events(from: source) {
            switch event {
            case let .partial(text, start, end):
                if json {
                    emit(["type": "partial", "text": text, "start": round3(start), "end": round3(end)])
                } else if inPlace {
                    StandardOutput.write("\r\u{1B}[K\u{1B}[2m\(clock(start))  \(text)\u{1B}[0m")
                }
            case let .final(segment, delay):
                if json {
                    emit(["type": "final", "text": segment.text, "start": round3(segment.start),
                          "end": round3(segment.end), "delay": round3(delay)])
                } else {
                    StandardOutput.write((inPlace ? "\r\u{1B}[K" : "") + "\(clock(segment.start))  \(segment.text)\n")
                }
            }
        }
        return 0
    }

    private static func emit(_ object: [String: Any]) {
        if let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]) {
            StandardOutput.write(String(decoding: data, as: UTF8.self) + "\n")
        }
    }

    private static func round3(_ x: Double) -> Double { (x * 1000).rounded() / 1000 }

    private static func clock(_ seconds: Double) -> String {
        String(format: "[%02d:%04.1f]", Int(seconds) / 60, seconds.truncatingRemainder(dividingBy: 60))
    }
}
