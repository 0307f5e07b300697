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
            guard let v = Double(text), v >= 0.975, v <= 30 else {
                throw UsageError(message: "--window must be seconds from 0.975 to 30, got '\(text)'", path: args.path)
            }
            w.duration = v
        }
        if let text = args.value("overlap") {
            guard let v = Double(text), v >= 0, v <= 0.9 else {
                throw UsageError(message: "--overlap must be a fraction from 0 to 0.9, got '\(text)'", path: args.path)
            }
            w.overlap = v
        }
        return w
    }

    static func loadModel(_ path: String, embedder: SoundEmbedder) throws -> SoundClassifierModel {
        let model = try SoundClassifierModel.load(from: path)
        try model.checkCompatible(with: embedder, path: path)
        return model
    }

    static func scores(_ top: [LabelScore]) -> [[String: Any]] {
        top.map { ["label": $0.label, "confidence": JSONOutput.rounded($0.confidence)] }
    }
}
