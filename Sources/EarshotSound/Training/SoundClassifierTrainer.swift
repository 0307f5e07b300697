import EarshotCore
import Foundation

/// Trains sound classifiers, the door to it: frozen embeddings per window (YAMNet, or the speaker encoder
/// for voices), a small head trained on top. A value (settings plus a shared, read-only network), so it
/// can be handed to any task; see `train(folder:)`, `evaluate(_:folder:)` and `crossValidate(folder:)`.
public struct SoundClassifierTrainer: Sendable {
    public let embedder: any WindowEmbedder
    public let cache: EmbeddingCache
    public var window = WindowSettings()
    public var options = HeadTrainer.Options()
    private let loader = AudioFileLoader(sampleRate: SoundEmbedder.sampleRate)

    public init(embedder: any WindowEmbedder, cache: EmbeddingCache = EmbeddingCache(), window: WindowSettings = WindowSettings(),
                options: HeadTrainer.Options = HeadTrainer.Options()) {
        self.embedder = embedder
        self.cache = cache
        self.window = window
        self.options = options
    }

    /// A trainer on `features`, or, when nil, on the network `SoundFeatures.suggested` picks for the
    /// labelled folder at `folder` (voice features when every label is speech).
    public init(features: SoundFeatures?, for folder: String, window: WindowSettings = WindowSettings(),
                options: HeadTrainer.Options = HeadTrainer.Options(), store: ModelStore = ModelStore()) throws {
        let chosen = try features ?? SoundFeatures.suggested(for: SoundDataset.scan(folder),
                                                             using: SoundFeatures.yamnet(store: store)).features
        self.init(embedder: try chosen.embedder(store: store), cache: EmbeddingCache(store: store), window: window, options: options)
    }

    /// A file that could not be used, and why.
    public struct Skipped: Sendable, Equatable, Codable {
        public var path: String
        public var reason: String
    }

    /// Window embeddings per dataset item (nil for files that could not be read), from the cache when possible.
    public func embeddings(of dataset: SoundDataset, progress: (@Sendable (Int, Int) -> Void)? = nil) -> (windows: [[SoundWindow]?], skipped: [Skipped]) {
        var skipped: [Skipped] = []
        var result: [[SoundWindow]?] = []
        for (i, item) in dataset.items.enumerated() {
            defer { progress?(i + 1, dataset.items.count) }
            guard let data = FileManager.default.contents(atPath: item.path) else {
                skipped.append(Skipped(path: item.path, reason: "cannot read file"))
                result.append(nil)
                continue
            }
            let key = cache.key(contentHash: SHA256.hex(data), window: window, modelHash: embedder.modelHash)
            if let cached = cache.load(key) { result.append(cached); continue }
            do {
                let audio = try loader.load(data: data, name: item.path)
                let windows = try embedder.windows(of: audio, settings: window)
                cache.store(windows, key: key)
                result.append(windows)
            } catch {
                skipped.append(Skipped(path: item.path, reason: error.localizedDescription))
                result.append(nil)
            }
        }
        return (result, skipped)
    }

    /// Rows of window embeddings with the label of their file.
    static func matrix(_ dataset: SoundDataset, _ windows: [[SoundWindow]?]) -> (Matrix, [Int]) {
        var rows: [[Float]] = [], labels: [Int] = []
        for (item, ws) in zip(dataset.items, windows) {
            for w in ws ?? [] { rows.append(w.embedding); labels.append(item.label) }
        }
        return (Matrix(stacking: rows), labels)
    }

    /// Trains on `train`, stopping early on `validation` (windows already embedded).
    public func fit(train: SoundDataset, trainWindows: [[SoundWindow]?], validation: SoundDataset?,
                    validationWindows: [[SoundWindow]?]?, onEpoch: ((HeadTrainer.Epoch) -> Void)? = nil) throws -> SoundClassifierModel {
        let (x, y) = Self.matrix(train, trainWindows)
        let present = Set(y)
        guard present.count >= 2 else {
            throw SoundError.badDataset(path: train.root, problem: "needs readable audio for at least two labels, has \(present.count)")
        }
        var validationSet: (x: Matrix, y: [Int])?
        if let validation, let validationWindows {
            let (vx, vy) = Self.matrix(validation, validationWindows)
            if vx.rows > 0 { validationSet = (vx, vy) }
        }
        let (head, history) = HeadTrainer(options: options).train(x: x, y: y, classes: train.labels.count,
                                                                   validation: validationSet, onEpoch: onEpoch)
        var files: [String: Int] = [:]
        for (item, w) in zip(train.items, trainWindows) where w != nil { files[train.labels[item.label], default: 0] += 1 }
        let best = history.compactMap(\.validationAccuracy).max()
        let summary = SoundClassifierModel.TrainingSummary(files: files, windows: x.rows, epochs: history, options: options,
                                                            validationAccuracy: best,
                                                            created: ISO8601DateFormatter().string(from: Date()))
        return SoundClassifierModel(labels: train.labels, window: window, frontEnd: embedder.frontEndSettings,
                                    embeddingModel: embedder.features.modelIdentity, embeddingModelHash: embedder.modelHash,
                                    head: head, training: summary)
    }

    /// File-level predictions: the mean of the head's window probabilities.
    public static func predict(_ model: SoundClassifierModel, _ windows: [[SoundWindow]?]) -> [Int?] {
        windows.map { ws in
            guard let ws, !ws.isEmpty else { return nil }
            let p = model.head.probabilities(Matrix(stacking: ws.map(\.embedding)))
            let mean = p.columnSums()
            return mean.indices.max { mean[$0] < mean[$1] }
        }
    }

    /// The report of a model on embedded, labelled files (nil when none could be read).
    public static func report(_ model: SoundClassifierModel, _ data: SoundDataset, _ windows: [[SoundWindow]?]) -> ClassificationReport? {
        let pairs = zip(data.items, predict(model, windows)).compactMap { item, p in p.map { (item.label, $0) } }
        guard !pairs.isEmpty else { return nil }
        return ClassificationReport(labels: model.labels, truth: pairs.map(\.0), predicted: pairs.map(\.1))
    }
}
