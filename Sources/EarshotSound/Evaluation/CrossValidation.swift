import EarshotCore
import Foundation

/// Per-fold and pooled results of k-fold cross-validation.
public struct CrossValidationResult: Sendable {
    public struct Fold: Sendable, Codable, Equatable { public var fold: Int; public var accuracy: Double; public var files: Int }
    public var folds: [Fold]
    /// Pooled over every fold's test files.
    public var report: ClassificationReport
    public var mean: Double { folds.map(\.accuracy).reduce(0, +) / Double(max(1, folds.count)) }
    public var std: Double {
        let m = mean
        return (folds.map { ($0.accuracy - m) * ($0.accuracy - m) }.reduce(0, +) / Double(max(1, folds.count))).squareRoot()
    }
}

extension SoundClassifierTrainer {
    /// Trains on all folds but one and tests on that one, for each fold. Early stopping uses a group-wise
    /// split of the training folds, never the test fold.
    public func crossValidate(_ data: SoundDataset, windows: [[SoundWindow]?], folds: [Int],
                              onFold: ((CrossValidationResult.Fold) -> Void)? = nil) throws -> CrossValidationResult {
        var results: [CrossValidationResult.Fold] = []
        var truth: [Int] = [], predicted: [Int] = []
        for fold in Set(folds).sorted() {
            let testIndices = data.items.indices.filter { folds[$0] == fold }
            let trainIndices = data.items.indices.filter { folds[$0] != fold }
            let windowOf = Dictionary(uniqueKeysWithValues: trainIndices.map { (data.items[$0].path, windows[$0]) })
            let (inner, innerValidation) = data.selecting(trainIndices).split(validationFraction: 0.15, seed: UInt64(fold))
            let model = try fit(train: inner, trainWindows: inner.items.map { windowOf[$0.path]! },
                                validation: innerValidation, validationWindows: innerValidation.items.map { windowOf[$0.path]! })
            let predictions = Self.predict(model, testIndices.map { windows[$0] })
            var correct = 0, counted = 0
            for (i, p) in zip(testIndices, predictions) {
                guard let p else { continue }
                truth.append(data.items[i].label)
                predicted.append(p)
                counted += 1
                if p == data.items[i].label { correct += 1 }
            }
            let result = CrossValidationResult.Fold(fold: fold, accuracy: Double(correct) / Double(max(1, counted)), files: counted)
            results.append(result)
            onFold?(result)
        }
        return CrossValidationResult(folds: results, report: ClassificationReport(labels: data.labels, truth: truth, predicted: predicted))
    }
}
