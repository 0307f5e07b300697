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
    public struct Skipped: Error, Sendable, Equatable, Codable {
        public var path: String
        public var reason: String
    }

    /// Window embeddings per dataset item (nil for files that could not be read), from the cache when possible.
    /// Files are embedded on every core at once (the networks' sessions allow concurrent runs, each on one thread):
    /// 251 LibriSpeech utterances took 2 minutes one at a time on 2 cores.
    public func embeddings(of dataset: SoundDataset, progress: (@Sendable (Int, Int) -> Void)? = nil) -> (windows: [[SoundWindow]?], skipped: [Skipped]) {
        let items = dataset.items
        let outcomes = Locked<(results: [Result<[SoundWindow], Skipped>?], done: Int)>((Array(repeating: nil, count: items.count), 0))
        DispatchQueue.concurrentPerform(iterations: items.count) { i in
            let outcome = embedding(of: items[i].path)
            outcomes.withLock { state in
                state.results[i] = outcome
                state.done += 1
                progress?(state.done, items.count)  // under the lock: counts arrive in order
            }
        }
        var skipped: [Skipped] = [], result: [[SoundWindow]?] = []
        for outcome in outcomes.withLock({ $0.results }) {
            switch outcome {
            case let .success(windows)?: result.append(windows)
            case let .failure(skip)?: skipped.append(skip); result.append(nil)
            case nil: result.append(nil)
            }
        }
        return (result, skipped)
    }

    private func embedding(of path: String) -> Result<[SoundWindow], Skipped> {
        guard let data = FileManager.default.contents(atPath: path) else {
            // every reason names its file (the loader's errors start with the path too)
            var isDirectory: ObjCBool = false
            let why = FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory)
                ? (isDirectory.boolValue ? " (is a directory)" : " (permission denied or unreadable)") : " (no such file)"
            return .failure(Skipped(path: path, reason: "\(path): cannot read file" + why))
        }
        let key = cache.key(contentHash: SHA256.hex(data), window: window, modelHash: embedder.modelHash)
        if let cached = cache.load(key) { return .success(cached) }
        do {
            let audio = try loader.load(data: data, name: path)
            let windows = try embedder.windows(of: audio, settings: window)
            cache.store(windows, key: key)
            return .success(windows)
        } catch {
            return .failure(Skipped(path: path, reason: error.localizedDescription))
        }
    }

    /// Rows of window embeddings with the label of their file (voice features: the speech windows).
    static func matrix(_ dataset: SoundDataset, _ windows: [[SoundWindow]?]) -> (Matrix, [Int]) {
        var rows: [[Float]] = [], labels: [Int] = []
        for (item, ws) in zip(dataset.items, windows) {
            for w in (ws ?? []).trainingWindows { rows.append(w.embedding); labels.append(item.label) }
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

    /// File-level predictions: the mean of the head's window probabilities (voice features: weighed by speech).
    public static func predict(_ model: SoundClassifierModel, _ windows: [[SoundWindow]?]) -> [Int?] {
        windows.map { ws in
            guard let ws, !ws.isEmpty else { return nil }
            let p = model.head.probabilities(Matrix(stacking: ws.map(\.embedding)))
            let mean = ws.weightedMean(of: (0..<p.rows).map { Array(p.row($0)) }, classes: model.labels.count)
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
