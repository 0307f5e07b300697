import EarshotCore
import EarshotSound
import Foundation

enum SoundCrossValidateCommand {
    static let command = Command(
        name: "cross-validate",
        abstract: "k-fold cross-validation of training on a labelled folder: per-fold and mean ± std accuracy.",
        usage: "<folder> [--folds meta.csv | -k n] [options]",
        discussion: """
        With a meta CSV holding a 'fold' column (DIR/meta.csv is used when present), its folds are used as
        given, so clips from one source recording never straddle train and test; otherwise files are dealt
        into k stratified folds, keeping each source group together.
        """,
        options: SoundCommand.windowOptions + [
            Option(name: "folds", value: "csv", help: "Meta CSV with path and fold columns."),
            Option(name: "k", value: "n", help: "Number of folds when there is no fold column (default 5).", short: "k"),
            SoundCommand.featuresOption,
            Option(name: "hidden", value: "n", help: "Add a hidden layer of n units (default: none)."),
            Option(name: "epochs", value: "n", help: "At most this many epochs (default 100)."),
            Option(name: "learning-rate", value: "x", help: "AdamW learning rate (default 0.001)."),
            Option(name: "no-balance", value: nil, help: "Do not weight classes by inverse frequency."),
            Option(name: "json", value: nil, help: "Print JSON."),
        ],
        examples: ["earshot sound cross-validate esc10/ --folds esc10/meta.csv", "earshot sound cross-validate voices/ --k 4"],
        run: run)

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        let k = try args.int("k", default: 5, range: 2...50)
        guard args.positionals.count == 1, let dir = args.positionals.first else { throw UsageError(message: "give one labelled folder", path: args.path) }
        let window = try SoundCommand.windowSettings(args)
        let headOptions = try SoundTrainCommand.options(args)
        let embedder = try SoundCommand.trainingEmbedder(args, for: try SoundDataset.scan(dir, meta: args.value("folds")))
        let trainer = SoundClassifierTrainer(embedder: embedder, window: window, options: headOptions)
        let json = args.flag("json")
        let cv = try trainer.crossValidate(folder: dir, k: k, meta: args.value("folds"), progress: SoundCommand.ProgressBars().update) { f in
            if !json { print(String(format: "fold %d: accuracy %.3f (%d test files)", f.fold, f.accuracy, f.files)) }
        }
        for s in cv.skipped { StandardError.write("skipped \(s.reason)\n") }
        if json {
            try JSONOutput.document(cv)
        } else {
            print(String(format: "\nmean accuracy %.3f ± %.3f over %d folds (%.1f s, of which embedding %.1f s)\n",
                         cv.mean, cv.std, cv.folds.count, cv.seconds, cv.embeddingSeconds))
            print(cv.report.text, terminator: "")
        }
        return 0
    }
}
