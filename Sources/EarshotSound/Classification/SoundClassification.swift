import EarshotCore

/// A label and how sure the classifier is.
public struct LabelScore: Sendable, Equatable, Codable {
    public var label: String
    public var confidence: Float
}

/// Classification of one window, or of a whole recording (window scores averaged).
public struct SoundClassification: Sendable, Equatable {
    public var start: Double
    public var end: Double
    public var top: [LabelScore]
}

extension Array where Element == Float {
    /// The `k` highest scores with their labels, best first.
    func top(_ k: Int, labels: [String]) -> [LabelScore] {
        indices.sorted { self[$0] > self[$1] }.prefix(k).map { LabelScore(label: labels[$0], confidence: self[$0]) }
    }
}

/// Classifies recordings with either the built-in AudioSet classifier (521 classes, YAMNet's own scores)
/// or a trained head over the embeddings of the network it was trained on.
public struct SoundClassifier: Sendable {
    public let embedder: any WindowEmbedder
    public let model: SoundClassifierModel?

    /// The built-in AudioSet classifier.
    public init(embedder: SoundEmbedder) {
        self.embedder = embedder
        model = nil
    }

    /// A trained model over `embedder`, the network it names (see `SoundFeatures.embedder`).
    public init(embedder: any WindowEmbedder, model: SoundClassifierModel) {
        self.embedder = embedder
        self.model = model
    }

    public var labels: [String] { model?.labels ?? (embedder as? SoundEmbedder)?.labels ?? [] }
    public var window: WindowSettings { model?.window ?? WindowSettings() }

    /// Per-window class scores: softmax probabilities of the trained head, or AudioSet sigmoid scores.
    public func scores(of windows: [SoundWindow]) -> [[Float]] {
        guard let model else { return windows.map(\.scores) }
        let x = Matrix(stacking: windows.map(\.embedding))
        let p = model.head.probabilities(x)
        return (0..<p.rows).map { Array(p.row($0)) }
    }

    /// The whole recording and, optionally, each window.
    public func classify(_ audio: AudioBuffer, top k: Int) throws -> (overall: SoundClassification, windows: [SoundClassification]) {
        let windows = try embedder.windows(of: audio, settings: window)
        let perWindow = scores(of: windows)
        var mean = [Float](repeating: 0, count: labels.count)
        for s in perWindow { for i in s.indices { mean[i] += s[i] / Float(perWindow.count) } }
        let overall = SoundClassification(start: 0, end: audio.duration, top: mean.top(k, labels: labels))
        let each = zip(windows, perWindow).map { SoundClassification(start: $0.start, end: $0.end, top: $1.top(k, labels: labels)) }
        return (overall, each)
    }
}
