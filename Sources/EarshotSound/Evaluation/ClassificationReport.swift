import Foundation

/// Accuracy, per-class precision/recall/F1 and the confusion matrix of file-level predictions.
public struct ClassificationReport: Sendable, Codable, Equatable {
    public struct ClassScores: Sendable, Codable, Equatable {
        public var label: String
        public var precision: Double
        public var recall: Double
        public var f1: Double
        public var support: Int
    }

    public var labels: [String]
    /// confusion[truth][predicted]
    public var confusion: [[Int]]
    public var accuracy: Double
    public var classes: [ClassScores]

    public init(labels: [String], truth: [Int], predicted: [Int]) {
        self.labels = labels
        var m = [[Int]](repeating: [Int](repeating: 0, count: labels.count), count: labels.count)
        for (t, p) in zip(truth, predicted) { m[t][p] += 1 }
        confusion = m
        accuracy = truth.isEmpty ? 0 : Double(zip(truth, predicted).filter { $0 == $1 }.count) / Double(truth.count)
        classes = labels.indices.map { c in
            let tp = Double(m[c][c])
            let predictedCount = Double(m.map { $0[c] }.reduce(0, +)), actual = Double(m[c].reduce(0, +))
            let precision = predictedCount > 0 ? tp / predictedCount : 0, recall = actual > 0 ? tp / actual : 0
            return ClassScores(label: labels[c], precision: precision, recall: recall,
                               f1: precision + recall > 0 ? 2 * precision * recall / (precision + recall) : 0, support: Int(actual))
        }
    }

    /// A text table for terminals.
    public var text: String {
        var out = String(format: "accuracy %.3f (%d files)\n\n", accuracy, confusion.joined().reduce(0, +))
        let width = max(10, (labels.map(\.count).max() ?? 0) + 2)
        out += "label".padding(toLength: width, withPad: " ", startingAt: 0) + "precision  recall     f1  files\n"
        for c in classes {
            out += c.label.padding(toLength: width, withPad: " ", startingAt: 0)
                + String(format: "%9.3f %7.3f %6.3f %6d\n", c.precision, c.recall, c.f1, c.support)
        }
        out += "\nconfusion (rows: true label, columns: predicted)\n"
        let short = labels.map { String($0.prefix(6)) }
        out += "".padding(toLength: width, withPad: " ", startingAt: 0) + short.map { $0.padding(toLength: 7, withPad: " ", startingAt: 0) }.joined() + "\n"
        for (i, row) in confusion.enumerated() {
            out += labels[i].padding(toLength: width, withPad: " ", startingAt: 0)
                + row.map { String($0).padding(toLength: 7, withPad: " ", startingAt: 0) }.joined() + "\n"
        }
        return out
    }
}
