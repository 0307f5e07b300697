import EarshotCore
import Foundation

/// What training on a folder produced: the model (not yet saved), how it did on the validation files, and
/// the files that could not be used.
public struct SoundTrainingResult: Sendable {
    public var model: SoundClassifierModel
    public var validation: ClassificationReport?
    public var validationFiles: Int
    public var skipped: [SoundClassifierTrainer.Skipped]
}

/// A model's report on a labelled folder, and the files that could not be used.
public struct SoundEvaluation: Sendable, Codable {
    public var report: ClassificationReport
    public var skipped: [SoundClassifierTrainer.Skipped]
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
                              onFold: (@Sendable (CrossValidationResult.Fold) -> Void)? = nil) throws
        -> (result: CrossValidationResult, labels: [String], skipped: [Skipped]) {
        let data = try SoundDataset.scan(folder, meta: meta)
        let embedded = embeddings(of: data) { progress?(SoundTrainingProgress(step: .embedding, done: $0, total: $1)) }
        let result = try crossValidate(data, windows: embedded.windows, folds: data.folds(k: k), onFold: onFold)
        return (result, data.labels, embedded.skipped)
    }
}
