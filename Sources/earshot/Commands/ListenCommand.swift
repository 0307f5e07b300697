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
        var source = try AudioSourceOptions.source(args, argument: args.positionals.first)
        // --speakers: the stream's last minute is kept, so each final line's audio can be matched to a voice
        var tap: TappedSource?
        var voices: VoiceID?
        if args.flag("speakers") {
            let id = try VoiceID()
            guard !(await id.enrolled().profiles.isEmpty) else { throw VoiceError.noProfiles }
            voices = id
            tap = TappedSource(source)
            source = tap!
        }
        let transcriber = try Transcriber.shared(speech)
        let json = args.flag("json")
        let inPlace = !json && isatty(1) == 1
        if inPlace && args.positionals.isEmpty { StandardError.write("listening… (Ctrl-C to stop)\n") }
        for try await event in transcriber.live(source) {
            switch event {
            case let .partial(text, start, _):
                if json {
                    try JSONOutput.event(event)
                } else if inPlace {
                    StandardOutput.write("\r\u{1B}[K\u{1B}[2m\(clock(start))  \(text)\u{1B}[0m")
                }
            case .final(var segment, let delay):
                if let tap, let voices {
                    segment.speaker = await speaker(of: segment, in: tap, among: voices)
                }
                if json {
                    try JSONOutput.event(LiveEvent.final(segment: segment, delay: delay))
                } else {
                    let who = segment.speaker.map { "\($0): " } ?? ""
                    StandardOutput.write((inPlace ? "\r\u{1B}[K" : "") + "\(clock(segment.start))  \(who)\(segment.text)\n")
                }
            }
        }
        return 0
    }

    /// The enrolled person whose voice a final line is, or "someone else" (too little speech to tell, too).
    static func speaker(of segment: TranscriptSegment, in tap: TappedSource, among voices: VoiceID) async -> String {
        guard let audio = tap.audio(from: segment.start, to: segment.end),
              let found = try? await voices.identify(audio: audio, source: "the line at \(clock(segment.start))") else { return "someone else" }
        return found.speaker ?? "someone else"
    }

    private static func clock(_ seconds: Double) -> String {
        String(format: "[%02d:%04.1f]", Int(seconds) / 60, seconds.truncatingRemainder(dividingBy: 60))
    }
}
