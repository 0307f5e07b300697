import EarshotCore

/// A label and how sure the classifier is.
public struct LabelScore: Sendable, Equatable, Codable {
    public var label: String
    public var confidence: Float
}

/// Classification of one window, or of a whole recording (window scores averaged, by speech for voice features).
public struct SoundClassification: Sendable, Equatable, Codable {
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

/// Sound classification, the one door to it: the built-in AudioSet classifier (521 classes, YAMNet's own
/// scores) or a trained model (a head over the embeddings of the network it was trained on), on files,
/// audio in memory, or a live stream. A value: share it freely between tasks (the networks under it
/// are read-only ONNX Runtime sessions, safe to run from several threads at once).
///
///     let classifier = try SoundClassifier.builtIn()
///     let result = try classifier.classify(file: "doorbell.wav")
///     print(result.overall.top[0].label)
public struct SoundClassifier: Sendable {
    public let embedder: any WindowEmbedder
    public let model: SoundClassifierModel?
    private var windowOverride: WindowSettings?

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
    /// How recordings are cut into windows: the trained model's, the built-in default, or `windowed(_:)`'s.
    public var window: WindowSettings { windowOverride ?? model?.window ?? WindowSettings() }

    /// The same classifier reading windows of other settings (longer windows average more YAMNet patches).
    public func windowed(_ settings: WindowSettings) -> SoundClassifier {
        var copy = self
        copy.windowOverride = settings
        return copy
    }

    /// The built-in AudioSet classifier (YAMNet loaded once per process).
    public static func builtIn(store: ModelStore = ModelStore()) throws -> SoundClassifier {
        SoundClassifier(embedder: try SoundFeatures.yamnet(store: store))
    }

    /// A trained model file with the network it was trained on, refused when that network is not the
    /// installed build.
    public static func load(from path: String, store: ModelStore = ModelStore()) throws -> SoundClassifier {
        let model = try SoundClassifierModel.load(from: path)
        let embedder = try model.features.embedder(store: store)
        try model.checkCompatible(with: embedder, path: path)
        return SoundClassifier(embedder: embedder, model: model)
    }

    /// A recording's classification: its best labels (window scores averaged; voice features by the speech in
    /// each window) and each window's.
    public struct Result: Sendable, Codable, Equatable {
        public var source: String
        public var duration: Double
        public var top: [LabelScore]
        public var windows: [SoundClassification]?
    }

    /// Classifies an audio file in any format (or standard input, "-").
    public func classify(file path: String, top k: Int = 5) throws -> Result {
        let audio = try AudioFileLoader(sampleRate: SoundEmbedder.sampleRate).load(path: path)
        let (overall, windows) = try classify(audio, top: k)
        return Result(source: path, duration: audio.duration, top: overall.top, windows: windows)
    }

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
        let mean = windows.weightedMean(of: perWindow, classes: labels.count)
        let overall = SoundClassification(start: 0, end: audio.duration, top: mean.top(k, labels: labels))
        let each = zip(windows, perWindow).map { SoundClassification(start: $0.start, end: $0.end, top: $1.top(k, labels: labels)) }
        return (overall, each)
    }
}
