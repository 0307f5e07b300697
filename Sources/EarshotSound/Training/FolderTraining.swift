import EarshotCore
import Foundation

/// What training on a folder produced: the model (not yet saved), how it did on the validation files, and
/// the files that could not be used.
public struct SoundTrainingResult: Sendable {
    public var model: SoundClassifierModel
    public var validation: ClassificationReport?
    public var validationFiles: Int
    public var skipped: [SoundClassifierTrainer.Skipped]

    /// The result without the weights: what `--json` prints and the HTTP API returns.
    public struct Summary: Sendable, Codable, Equatable {
        /// Where the model was saved, when it was.
        public var model: String?
        public var labels: [String]
        public var features: SoundFeatures
        public var windows: Int
        public var epochs: Int
        public var validation: ClassificationReport?
        public var validationFiles: Int
        public var skipped: [SoundClassifierTrainer.Skipped]

        private enum CodingKeys: String, CodingKey {
            case model, labels, features, windows, epochs, validation, skipped, validationFiles = "validation_files"
        }
    }

    public func summary(savedAt path: String? = nil) -> Summary {
        Summary(model: path, labels: model.labels, features: model.features, windows: model.training?.windows ?? 0,
                epochs: model.training?.epochs.count ?? 0, validation: validation, validationFiles: validationFiles, skipped: skipped)
    }
}

/// A model's report on a labelled folder, and the files that could not be used. JSON: the report's fields
/// (accuracy, labels, confusion, classes) and `skipped`.
public struct SoundEvaluation: Sendable, Codable, Equatable {
    public var report: ClassificationReport
    public var skipped: [SoundClassifierTrainer.Skipped]

    private enum CodingKeys: String, CodingKey { case skipped }

    public init(report: ClassificationReport, skipped: [SoundClassifierTrainer.Skipped]) {
        self.report = report
        self.skipped = skipped
    }

    public func encode(to encoder: Encoder) throws {
        try report.encode(to: encoder)
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(skipped, forKey: .skipped)
    }

    public init(from decoder: Decoder) throws {
        report = try ClassificationReport(from: decoder)
        skipped = try decoder.container(keyedBy: CodingKeys.self).decode([SoundClassifierTrainer.Skipped].self, forKey: .skipped)
    }
}

/// k-fold cross-validation of training on a labelled folder.
public struct SoundCrossValidation: Sendable, Codable, Equatable {
    public var features: SoundFeatures
    public var labels: [String]
    public var folds: [CrossValidationResult.Fold]
    public var mean: Double
    public var std: Double
    /// Pooled over every fold's test files.
    public var report: ClassificationReport
    public var skipped: [SoundClassifierTrainer.Skipped]
    public var seconds: Double
    public var embeddingSeconds: Double

    private enum CodingKeys: String, CodingKey {
        case features, labels, folds, mean, std, report, skipped, seconds, embeddingSeconds = "embedding_seconds"
    }
}

/// Where a folder-level job is: which step, and how many files of it are done.
public struct SoundTrainingProgress: Sendable {
    public enum Step: String, Sendable { case embeddingTraining = "embedding training audio", embeddingValidation = "embedding validation audio",
                                              embedding = "embedding" }
    public var step: Step
    public var done: Int
    public var total: Int
}

extension SoundClassifierTrainer {
    /// Trains on a folder with one sub-folder of recordings per label. Early stopping uses `validation`
    /// (a labelled folder) or a stratified 20% split that keeps files of one source together (`meta`, or
    /// FOLDER/meta.csv, may name fold or source columns).
    public func train(folder: String, validation validationFolder: String? = nil, meta: String? = nil,
                      progress: (@Sendable (SoundTrainingProgress) -> Void)? = nil,
                      onEpoch: (@Sendable (HeadTrainer.Epoch) -> Void)? = nil) throws -> SoundTrainingResult {
        var train = try SoundDataset.scan(folder, meta: meta)
        let validation: SoundDataset
        if let validationFolder {
            validation = try SoundDataset.scan(validationFolder, labels: train.labels)
        } else {
            (train, validation) = train.split(validationFraction: 0.2)
        }
        let trained = embeddings(of: train) { progress?(SoundTrainingProgress(step: .embeddingTraining, done: $0, total: $1)) }
        let held = embeddings(of: validation) { progress?(SoundTrainingProgress(step: .embeddingValidation, done: $0, total: $1)) }
        try Self.requireReadableAudio(in: train, trained.windows, skipped: trained.skipped + held.skipped)
        let model = try fit(train: train, trainWindows: trained.windows, validation: validation,
                            validationWindows: held.windows, onEpoch: onEpoch)
        return SoundTrainingResult(model: model, validation: Self.report(model, validation, held.windows),
                                   validationFiles: validation.items.count, skipped: trained.skipped + held.skipped)
    }

    /// How a trained model does on a labelled folder (labels matched by name).
    public func evaluate(_ model: SoundClassifierModel, folder: String,
                         progress: (@Sendable (SoundTrainingProgress) -> Void)? = nil) throws -> SoundEvaluation {
        let data = try SoundDataset.scan(folder, labels: model.labels)
        var trainer = self
        trainer.window = model.window
        let embedded = trainer.embeddings(of: data) { progress?(SoundTrainingProgress(step: .embedding, done: $0, total: $1)) }
        guard let report = Self.report(model, data, embedded.windows) else {
            throw SoundError.badDataset(path: folder, problem: "no readable audio to evaluate")
        }
        return SoundEvaluation(report: report, skipped: embedded.skipped)
    }

    /// k-fold cross-validation on a labelled folder: the fold column of `meta` (or FOLDER/meta.csv) when
    /// there is one, otherwise `k` stratified folds that keep each source group together.
    public func crossValidate(folder: String, k: Int = 5, meta: String? = nil,
                              progress: (@Sendable (SoundTrainingProgress) -> Void)? = nil,
                              onFold: (@Sendable (CrossValidationResult.Fold) -> Void)? = nil) throws -> SoundCrossValidation {
        let started = Date()
        let data = try SoundDataset.scan(folder, meta: meta)
        let embedded = embeddings(of: data) { progress?(SoundTrainingProgress(step: .embedding, done: $0, total: $1)) }
        try Self.requireReadableAudio(in: data, embedded.windows, skipped: embedded.skipped)
        let embeddingSeconds = Date().timeIntervalSince(started)
        let result = try crossValidate(data, windows: embedded.windows, folds: data.folds(k: k), onFold: onFold)
        return SoundCrossValidation(features: embedder.features, labels: data.labels, folds: result.folds, mean: result.mean,
                                    std: result.std, report: result.report, skipped: embedded.skipped,
                                    seconds: Date().timeIntervalSince(started), embeddingSeconds: embeddingSeconds)
    }
}

extension SoundClassifierTrainer {
    /// A label whose files were all skipped would become a class the model never saw: refused, naming the
    /// folder and why its files could not be read.
    static func requireReadableAudio(in data: SoundDataset, _ windows: [[SoundWindow]?], skipped: [Skipped]) throws {
        for (index, label) in data.labels.enumerated() {
            let files = data.items.indices.filter { data.items[$0].label == index }
            guard !files.isEmpty, files.allSatisfy({ windows[$0] == nil }) else { continue }
            let paths = Set(files.map { data.items[$0].path })
            let reasons = skipped.filter { paths.contains($0.path) }.prefix(3)
                .map { "\(($0.path as NSString).lastPathComponent): \($0.reason)" }.joined(separator: "; ")
            throw SoundError.badDataset(path: (data.root as NSString).appendingPathComponent(label),
                                        problem: "no readable audio in label '\(label)' (\(files.count) file\(files.count == 1 ? "" : "s") "
                                            + "skipped: \(reasons)); fix or remove the folder")
        }
    }
}
