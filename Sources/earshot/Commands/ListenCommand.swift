import EarshotCore
import EarshotSpeech
import EarshotVoice
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
        options: SpeechOptions.all + AudioSourceOptions.all + [
            Option(name: "json", value: nil, help: "One JSON event per line: {\"type\":\"partial\"|\"final\", ...}."),
            Option(name: "speakers", value: nil, help: "Label each final line with the enrolled voice that spoke it, or 'someone else'."),
        ],
        examples: [
            "earshot listen",
            "arecord -q -t raw -f S16_LE -r 16000 -c 1 - | earshot listen -",
            "parec --raw --format=s16le --rate=48000 --channels=2 | earshot listen - --rate 48000 --channels 2",
            "earshot listen --realtime --json talk.wav",
            "earshot listen --speakers                     # [00:03.1]  Ruth: shall we start?",
        ],
        run: run)

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        guard args.positionals.count <= 1 else {
            throw UsageError(message: "give at most one source: '-' or a file", path: args.path)
        }
        let speech = try SpeechOptions.read(args)
        let source = try AudioSourceOptions.source(args, argument: args.positionals.first)
        // --speakers: checked before listening starts, so a missing enrolment is said at once
        let voices = args.flag("speakers") ? try VoiceID() : nil
        try await voices?.requireSomeoneEnrolled()
        let transcriber = try Transcriber.shared(speech)
        let json = args.flag("json")
        let inPlace = !json && isatty(1) == 1
        if inPlace && args.positionals.isEmpty { StandardError.write("listening… (Ctrl-C to stop)\n") }
        for try await event in transcriber.live(source, speakers: voices) {
            switch event {
            case let .partial(text, start, _):
                if json {
                    try JSONOutput.event(event)
                } else if inPlace {
                    StandardOutput.write("\r\u{1B}[K\u{1B}[2m\(clock(start))  \(text)\u{1B}[0m")
                }
            case let .final(segment, _):
                if json {
                    try JSONOutput.event(event)
                } else {
                    let who = segment.speaker.map { "\($0): " } ?? ""
                    StandardOutput.write((inPlace ? "\r\u{1B}[K" : "") + "\(clock(segment.start))  \(who)\(segment.text)\n")
                }
            }
        }
        return 0
    }

    private static func clock(_ seconds: Double) -> String {
        String(format: "[%02d:%04.1f]", Int(seconds) / 60, seconds.truncatingRemainder(dividingBy: 60))
    }
}
