import EarshotCore
import EarshotSound
import Foundation

enum SoundEvaluateCommand {
    static let command = Command(
        name: "evaluate",
        abstract: "Accuracy, per-class precision/recall/F1 and confusion matrix of a model on a labelled folder.",
        usage: "<name.model> <folder> [--json]",
        options: [Option(name: "json", value: nil, help: "Print JSON.")],
        examples: ["earshot sound evaluate animals.model test-animals/"],
        run: run)

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        guard args.positionals.count == 2 else { throw UsageError(message: "give a model and a labelled folder", path: args.path) }
        let classifier = try SoundClassifier.load(from: args.positionals[0])
        guard let model = classifier.model else { return 1 }
        let evaluation = try SoundClassifierTrainer(embedder: classifier.embedder)
            .evaluate(model, folder: args.positionals[1], progress: SoundCommand.ProgressBars().update)
        for s in evaluation.skipped { StandardError.write("skipped \(s.reason)\n") }
        if args.flag("json") {
            try JSONOutput.document(evaluation)
        } else {
            print(evaluation.report.text, terminator: "")
        }
        return 0
    }
}
