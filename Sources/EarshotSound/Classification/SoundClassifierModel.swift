import EarshotCore
import Foundation

/// A trained sound classifier as saved on disk: versioned, self-describing JSON (labels, front-end and
/// window settings, the identity and hash of the embedding network, head weights, training summary).
public struct SoundClassifierModel: Sendable, Codable, Equatable {
    public static let format = "earshot.sound-classifier"
    public static let currentVersion = 1

    public struct TrainingSummary: Sendable, Codable, Equatable {
        public var files: [String: Int]  // per label
        public var windows: Int
        public var epochs: [HeadTrainer.Epoch]
        public var options: HeadTrainer.Options
        public var validationAccuracy: Float?
        public var created: String
    }

    public var format = Self.format
    public var version = Self.currentVersion
    public var labels: [String]
    public var window: WindowSettings
    public var frontEnd: LogMelSpectrogram.Settings
    public var embeddingModel: String
    public var embeddingModelHash: String
    public var head: ClassifierHead
    public var training: TrainingSummary?

    public init(labels: [String], window: WindowSettings, frontEnd: LogMelSpectrogram.Settings, embeddingModel: String,
                embeddingModelHash: String, head: ClassifierHead, training: TrainingSummary?) {
        self.labels = labels
        self.window = window
        self.frontEnd = frontEnd
        self.embeddingModel = embeddingModel
        self.embeddingModelHash = embeddingModelHash
        self.head = head
        self.training = training
    }

    /// Writes atomically: a killed process leaves the old file or the new one, never half of one.
    public func save(to path: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        try encoder.encode(self).write(to: URL(fileURLWithPath: path), options: .atomic)
    }

    public static func load(from path: String) throws -> SoundClassifierModel {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw SoundError.badModel(path: path, problem: "cannot read the file")
        }
        return try validated(from: data, path: path)
    }

    /// A model read from a file's bytes, checked whole: refused with `SoundError.badModel` naming `path`
    /// unless its labels, windows, front-end and head are usable (see `problem(features:)`).
    public static func validated(from data: Data, path: String) throws -> SoundClassifierModel {
        struct Header: Decodable { var format: String?; var version: Int? }
        guard let header = try? JSONDecoder().decode(Header.self, from: data), header.format == format else {
            throw SoundError.badModel(path: path, problem: "not an Earshot sound classifier (truncated or another kind of file)")
        }
        guard header.version == currentVersion else {
            throw SoundError.badModel(path: path, problem: "format version \(header.version ?? 0); this Earshot reads version \(currentVersion)")
        }
        do {
            let model = try JSONDecoder().decode(SoundClassifierModel.self, from: data)
            guard let features = SoundFeatures(modelIdentity: model.embeddingModel) else {
                throw SoundError.badModel(path: path, problem: "trained with embedding model \(model.embeddingModel), which this Earshot "
                    + "does not have (it has \(SoundFeatures.allCases.map(\.modelIdentity).joined(separator: ", "))); retrain it")
            }
            if let problem = model.problem(features: features) { throw SoundError.badModel(path: path, problem: problem) }
            return model
        } catch let error as SoundError {
            throw error
        } catch {
            throw SoundError.badModel(path: path, problem: "damaged contents (\(error.localizedDescription))")
        }
    }

    /// What makes a decoded model unusable, or nil: labels, windows and front-end in range, and a head that
    /// fits them and the network (a damaged file must be refused, not crash or answer wrongly).
    func problem(features: SoundFeatures) -> String? {
        guard labels.count >= 2, Set(labels).count == labels.count, labels.allSatisfy({ !$0.isEmpty }) else {
            return "needs two or more distinct, non-empty labels; has \(labels)"
        }
        guard WindowSettings.durations.contains(window.duration), WindowSettings.overlaps.contains(window.overlap) else {
            return "window of \(window.duration) s with overlap \(window.overlap) (windows are 0.975 to 30 s, overlap 0 to 0.9)"
        }
        guard frontEnd == features.frontEndSettings else {
            return "its audio front-end settings are not those of the \(features.rawValue) network"
        }
        if let problem = head.problem(inputSize: features.dimension, classes: labels.count) { return "damaged head: \(problem)" }
        return nil
    }

    /// The frozen network the head was trained on (`load` refuses files naming another).
    public var features: SoundFeatures { SoundFeatures(modelIdentity: embeddingModel) ?? .yamnet }

    /// Refuses a model trained on another embedding network.
    public func checkCompatible(with embedder: any WindowEmbedder, path: String) throws {
        guard embeddingModel == embedder.features.modelIdentity else {
            throw SoundError.badModel(path: path, problem: "trained on the embedding network \(embeddingModel), which this Earshot "
                + "does not have (it has \(embedder.features.modelIdentity)); retrain it")
        }
        guard embeddingModelHash == embedder.modelHash else {
            // the build is the network's and, for voice features, Earshot's front-end for it: either may have changed
            throw SoundError.badModel(path: path, problem: "trained on another build of \(embeddingModel) (build \(embeddingModelHash.prefix(12)); "
                + "this Earshot computes build \(embedder.modelHash.prefix(12)): setup installed another network or Earshot "
                + "changed how it reads recordings, so the features differ); retrain it")
        }
    }
}

public enum SoundError: Error, LocalizedError, Equatable {
    case badModel(path: String, problem: String)
    case badDataset(path: String, problem: String)

    public var errorDescription: String? {
        switch self {
        case let .badModel(path, problem): return "\(path): \(problem)"
        case let .badDataset(path, problem): return "\(path): \(problem)"
        }
    }
}
