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
        var failures = 0
        var documents: [SoundClassifier.Result] = []
        for path in args.positionals {
            do {
                var result = try classifier.classify(file: path, top: k)
                if !args.flag("windows") { result.windows = nil }
                if args.flag("json") {
                    documents.append(result)
                } else {
                    print("\(path):")
                    for s in result.top { print(String(format: "  %5.1f%%  %@", s.confidence * 100, s.label)) }
                    for w in result.windows ?? [] {
                        let labels = w.top.prefix(3).map { String(format: "%@ %.0f%%", $0.label, $0.confidence * 100) }
                        print(String(format: "  [%6.2f → %6.2f] ", w.start, w.end) + labels.joined(separator: ", "))
                    }
                }
            } catch let error as AudioError {
                failures += 1
                CommandRunner.fail(error)
            }
        }
        if args.flag("json") {
            if args.positionals.count == 1, let only = documents.first { try JSONOutput.document(only) } else { try JSONOutput.document(documents) }
        }
        return failures == 0 ? 0 : 1
    }
}
