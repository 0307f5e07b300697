import EarshotCore
import EarshotSound
import Foundation

enum SoundTrainCommand {
    static let command = Command(
        name: "train",
        abstract: "Train a classifier from a folder with one sub-folder of recordings per label.",
        usage: "<folder> -o <name.model> [options]",
        discussion: """
        Each recording is cut into windows; a frozen network turns each window into an embedding — YAMNet
        (1024-d, sounds in general) or, with --features speaker, the d-vector speaker encoder (256-d, voices;
        chosen by default when every label folder holds speech) — and a small head (softmax regression, or one hidden layer with --hidden) is trained on them with AdamW and
        class-balanced cross-entropy, stopping early on a validation set: --validation DIR, or a stratified
        split of the training folder that keeps files of one source together when DIR/meta.csv (or --meta)
        has a fold or source column. Embeddings are cached by file content, so retraining after adding
        files only embeds the new ones.
        """,
        options: SoundCommand.windowOptions + [
            Option(name: "output", value: "file", help: "Where to write the model.", short: "o"),
            SoundCommand.featuresOption,
            Option(name: "validation", value: "folder", help: "Labelled folder for early stopping (default: a 20% split)."),
            Option(name: "meta", value: "csv", help: "CSV with path and fold/source columns (default DIR/meta.csv)."),
            Option(name: "hidden", value: "n", help: "Add a hidden layer of n units (default: none)."),
            Option(name: "epochs", value: "n", help: "At most this many epochs (default 100)."),
            Option(name: "learning-rate", value: "x", help: "AdamW learning rate (default 0.001)."),
            Option(name: "no-balance", value: nil, help: "Do not weight classes by inverse frequency."),
            Option(name: "json", value: nil, help: "Print the training summary and report as JSON."),
        ],
        examples: ["earshot sound train animals/ -o animals.model", "earshot sound train voices/ -o gender.model --features speaker --window 2",
                   "earshot sound train esc10/ -o esc10.model --hidden 256 --window 1.5 --overlap 0.5"],
        run: run)

    static func options(_ args: ParsedArguments) throws -> HeadTrainer.Options {
        var o = HeadTrainer.Options()
        if args.value("hidden") != nil { o.hidden = try args.int("hidden", default: 256, range: 2...4096) }
        o.maxEpochs = try args.int("epochs", default: 100, range: 1...10_000)
        if let lr = args.value("learning-rate") {
            guard let v = Float(lr), v > 0, v < 1 else { throw UsageError(message: "--learning-rate must be between 0 and 1", path: args.path) }
            o.learningRate = v
        }
        o.balanceClasses = !args.flag("no-balance")
        return o
    }

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        let output = args.value("output")
        guard args.positionals.count == 1, let dir = args.positionals.first else {
            throw UsageError(message: "give one training folder", path: args.path)
        }
        guard let output else { throw UsageError(message: "say where to write the model with -o NAME.model", path: args.path) }
        let window = try SoundCommand.windowSettings(args)
        let headOptions = try options(args)
        for empty in SoundDataset.emptyLabelFolders(dir) {
            StandardError.write("warning: \(dir)/\(empty) holds no audio; label '\(empty)' is left out\n")
        }
        let embedder = try SoundCommand.trainingEmbedder(args, for: try SoundDataset.scan(dir, meta: args.value("meta")))
        let trainer = SoundClassifierTrainer(embedder: embedder, window: window, options: headOptions)
        let json = args.flag("json")
        let bar = SoundCommand.ProgressBars()
        let result = try trainer.train(folder: dir, validation: args.value("validation"), meta: args.value("meta"),
                                       progress: bar.update) { e in
            guard !json else { return }
            var line = String(format: "epoch %3d  train loss %.4f acc %.3f", e.epoch, e.trainLoss, e.trainAccuracy)
            if let l = e.validationLoss, let a = e.validationAccuracy { line += String(format: "  validation loss %.4f acc %.3f", l, a) }
            StandardError.write(line + "\n")
        }
        let (model, report, skipped) = (result.model, result.validation, result.skipped)
        for s in skipped { StandardError.write("skipped \(s.reason)\n") }
        try model.save(to: output)
        if json {
            try JSONOutput.document(result.summary(savedAt: output))
        } else {
            print("wrote \(output): \(model.labels.count) labels, \(model.training?.windows ?? 0) training windows, "
                  + "\(model.training?.epochs.count ?? 0) epochs")
            if let report { print("\nvalidation (\(result.validationFiles) files):\n" + report.text) }
        }
        return 0
    }
}
