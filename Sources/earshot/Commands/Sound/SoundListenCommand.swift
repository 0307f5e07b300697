import EarshotCore
import EarshotSound
import Foundation

enum SoundListenCommand {
    static let command = Command(
        name: "listen",
        abstract: "Classify live audio window by window: microphone, raw stdin ('-') or a replayed file.",
        usage: "[name.model] [- | <file>] [options]",
        discussion: """
        Prints each window's top label and confidence, or '—' when the confidence is under --threshold.
        Without a model the built-in AudioSet classifier is used.
        """,
        options: AudioSourceOptions.all + SoundCommand.windowOptions + [
            Option(name: "threshold", value: "p", help: "Confidence needed to name a label (default 0.7)."),
            Option(name: "smooth", value: "n", help: "Average scores over the last n windows (default 1)."),
            Option(name: "json", value: nil, help: "One JSON event per window."),
        ],
        examples: ["earshot sound listen animals.model", "arecord -q -t raw -f S16_LE -r 16000 -c 1 - | earshot sound listen - --json",
                   "earshot sound listen animals.model --realtime --smooth 3 zoo.wav"],
        run: run)

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        var positionals = args.positionals
        let modelPath = positionals.first.flatMap { $0.hasSuffix(".model") ? $0 : nil }
        if modelPath != nil { positionals.removeFirst() }
        guard positionals.count <= 1 else { throw UsageError(message: "give at most one source: '-' or a file", path: args.path) }
        let thresholdText = args.value("threshold") ?? "0.7"
        guard let threshold = Float(thresholdText), threshold >= 0, threshold <= 1 else {
            throw UsageError(message: "--threshold must be between 0 and 1, got '\(thresholdText)'", path: args.path)
        }
        let source = try AudioSourceOptions.source(args, argument: positionals.first)
        let window = try SoundCommand.windowSettings(args)
        var classifier = try modelPath.map { try SoundClassifier.load(from: $0) } ?? SoundClassifier.builtIn()
        if args.value("window") != nil || args.value("overlap") != nil { classifier = classifier.windowed(window) }
        let settings = SoundClassifier.LiveSettings(threshold: threshold, smoothing: try args.int("smooth", default: 1, range: 1...100))
        for try await e in classifier.listen(source, settings: settings) {
            if args.flag("json") {
                try JSONOutput.event(e)
            } else {
                StandardOutput.write(String(format: "[%7.2f] %@ %5.1f%%\n", e.start, e.label ?? "—", e.confidence * 100))
            }
        }
        return 0
    }
}
