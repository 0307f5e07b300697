import EarshotCore
import EarshotSound
import Foundation

enum SoundClassifyCommand {
    static let command = Command(
        name: "classify",
        abstract: "Name the sounds in recordings: the built-in 521-class AudioSet classifier, or a trained model.",
        usage: "[options] <file>... | -",
        options: [
            Option(name: "model", value: "file", help: "A classifier from 'earshot sound train' (default: built-in AudioSet)."),
            Option(name: "top", value: "k", help: "How many labels to show (default 5)."),
            Option(name: "windows", value: nil, help: "Also show each window's top labels."),
            Option(name: "json", value: nil, help: "Print JSON."),
        ],
        examples: ["earshot sound classify street.wav", "earshot sound classify --model animals.model --windows --json bark.flac"],
        run: run)

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        guard !args.positionals.isEmpty else { throw UsageError(message: "give at least one audio file, or '-'", path: args.path) }
        let k = try args.int("top", default: 5, range: 1...521)
        let classifier = try args.value("model").map { try SoundClassifier.load(from: $0) } ?? SoundClassifier.builtIn()
        let loader = AudioFileLoader(sampleRate: SoundEmbedder.sampleRate)
        var failures = 0
        var documents: [[String: Any]] = []
        for path in args.positionals {
            do {
                let audio = try loader.load(path: path)
                let result = try classifier.classify(audio, top: k)
                if args.flag("json") {
                    var doc: [String: Any] = ["source": path, "duration": (audio.duration * 1000).rounded() / 1000,
                                              "top": SoundCommand.scores(result.overall.top)]
                    if args.flag("windows") {
                        doc["windows"] = result.windows.map { ["start": $0.start, "end": $0.end, "top": SoundCommand.scores($0.top)] }
                    }
                    documents.append(doc)
                } else {
                    print("\(path):")
                    for s in result.overall.top { print(String(format: "  %5.1f%%  %@", s.confidence * 100, s.label)) }
                    if args.flag("windows") {
                        for w in result.windows {
                            let labels = w.top.prefix(3).map { String(format: "%@ %.0f%%", $0.label, $0.confidence * 100) }
                            print(String(format: "  [%6.2f → %6.2f] ", w.start, w.end) + labels.joined(separator: ", "))
                        }
                    }
                }
            } catch let error as AudioError {
                failures += 1
                CommandRunner.fail(error.localizedDescription)
            }
        }
        if args.flag("json") { JSONOutput.document(args.positionals.count == 1 && documents.count == 1 ? documents[0] as Any : documents as Any) }
        return failures == 0 ? 0 : 1
    }
}
