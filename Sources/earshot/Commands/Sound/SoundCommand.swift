import EarshotCore
import EarshotSound
import Foundation

/// `earshot sound ...`: the built-in AudioSet classifier and classifiers trained from folders.
enum SoundCommand {
    static let command = Command(
        name: "sound",
        abstract: "Classify sounds, train your own classifier from folders of audio, evaluate, listen live, export.",
        examples: [
            "earshot sound classify doorbell.wav",
            "earshot sound train animals/ -o animals.model",
            "earshot sound evaluate animals.model test-animals/",
            "earshot sound cross-validate animals/ --folds animals/meta.csv",
            "earshot sound listen animals.model",
            "earshot sound export animals.model -o animals.onnx",
        ],
        subcommands: [SoundClassifyCommand.command, SoundTrainCommand.command, SoundEvaluateCommand.command,
                      SoundCrossValidateCommand.command, SoundListenCommand.command, SoundExportCommand.command])

    static let windowOptions = [
        Option(name: "window", value: "seconds", help: "Analysis window (default 0.975, one YAMNet patch)."),
        Option(name: "overlap", value: "fraction", help: "Overlap of consecutive windows, 0 to 0.9 (default 0.5)."),
    ]

    static func windowSettings(_ args: ParsedArguments) throws -> WindowSettings {
        var w = WindowSettings()
        if let text = args.value("window") {
            guard let v = Double(text), WindowSettings.durations.contains(v) else {
                throw UsageError(message: "--window must be seconds from 0.975 to 30, got '\(text)'", path: args.path)
            }
            w.duration = v
        }
        if let text = args.value("overlap") {
            guard let v = Double(text), WindowSettings.overlaps.contains(v) else {
                throw UsageError(message: "--overlap must be a fraction from 0 to 0.9, got '\(text)'", path: args.path)
            }
            w.overlap = v
        }
        return w
    }

    static let featuresOption = Option(
        name: "features", value: "net",
        help: "Frozen network under the head: yamnet (sounds) or speaker (voices). Default: speaker when every label folder holds speech.")

    /// The network to train on: `--features`, or the one the built-in classifier suggests for the data.
    static func trainingEmbedder(_ args: ParsedArguments, for dataset: SoundDataset) throws -> any WindowEmbedder {
        if let name = args.value("features") {
            guard let features = SoundFeatures(rawValue: name) else {
                throw UsageError(message: "--features must be one of \(SoundFeatures.allCases.map(\.rawValue).joined(separator: ", ")), got '\(name)'",
                                 path: args.path)
            }
            return try features.embedder()
        }
        let yamnet = try SoundFeatures.yamnet()
        let (features, share) = SoundFeatures.suggested(for: dataset, using: yamnet)
        if features == .speaker {
            let labels = share.keys.sorted().joined(separator: ", ")
            StandardError.write("every label folder holds speech (\(labels)): training on voice features (--features speaker); "
                                + "give --features yamnet for sound features\n")
            return try features.embedder()
        }
        return yamnet
    }

    /// One progress bar per step of a folder job (embedding training audio, then validation audio), on
    /// standard error.
    final class ProgressBars: Sendable {
        private let current = Locked<(step: SoundTrainingProgress.Step, bar: ProgressBar)?>(nil)

        @Sendable func update(_ progress: SoundTrainingProgress) {
            current.withLock { current in
                if current?.step != progress.step {
                    current?.bar.finish()
                    current = (progress.step, ProgressBar(label: progress.step.rawValue, total: Double(max(1, progress.total))))
                }
                current?.bar.update(Double(progress.done), detail: "\(progress.done)/\(progress.total) files")
                if progress.done >= progress.total { current?.bar.finish() }
            }
        }
    }
}
