import Foundation

/// The speaker network the diarizer tells voices apart with: 3D-Speaker's CAM++ (trained on about 200,000
/// Chinese and English speakers), converted to ONNX by setup, in float32. Where the d-vector encoder that voice ID
/// enrols with scores two similar voices of one recording alike, this one separates them (DER on pyannote's
/// two-speaker sample, BENCHMARKS.md). Input: Kaldi filterbank frames (`KaldiFilterbank`), each window's mean
/// over time taken out; output: a 192-d vector per window, L2-normalised here.
public final class DiarizationEncoder: Sendable {
    public static let sampleRate = KaldiFilterbank.sampleRate
    public static let dimension = 192
    /// Windows embedded in one run of the network.
    static let batch = 32

    public let frontEnd = KaldiFilterbank(bands: 80)
    public let modelHash: String
    private let session: InferenceSession

    /// `threads`: the network is most of a diarization's compute, and one file's windows come in batches that
    /// two threads share well.
    static let file = "models/diarization/campplus.onnx"

    public init(store: ModelStore = ModelStore(), threads: Int = min(2, ProcessInfo.processInfo.activeProcessorCount)) throws {
        let path = try store.file(Self.file, of: "diarization speaker network")
        session = try InferenceSession(path: path, threads: threads)
        modelHash = try store.buildIdentity(of: "models/diarization", model: "diarization speaker network")
    }

    /// Whether setup installed the network (a file that is there but changed is still refused when it loads).
    public static func isInstalled(store: ModelStore = ModelStore()) -> Bool {
        FileManager.default.fileExists(atPath: store.home.appendingPathComponent(file).path)
    }

    private static let loaded = SharedInstances<URL, DiarizationEncoder>()

    /// The process's encoder for the models under `store`, loaded on first use.
    public static func shared(store: ModelStore = ModelStore()) throws -> DiarizationEncoder {
        try loaded.instance(for: store.home) { try DiarizationEncoder(store: store) }
    }

    /// One L2-normalised vector per window, each window a range of frames of `features` ([frame][band], from
    /// `frontEnd`). Windows of one length run together.
    public func embeddings(features: [Float], windows: [Range<Int>]) throws -> [[Float]] {
        let bands = frontEnd.bands
        var result = [[Float]](repeating: [], count: windows.count)
        let byLength = Dictionary(grouping: windows.indices.filter { !windows[$0].isEmpty }) { windows[$0].count }
        for (length, members) in byLength {
            for start in stride(from: 0, to: members.count, by: Self.batch) {
                let group = members[start..<min(members.count, start + Self.batch)]
                var values: [Float] = []
                values.reserveCapacity(group.count * length * bands)
                for w in group { values += Self.meanRemoved(features, frames: windows[w], bands: bands) }
                let out = try session.run(["fbank": Tensor(shape: [group.count, length, bands], floats: values)],
                                          outputs: ["embedding"])[0].floats
                for (k, w) in group.enumerated() {
                    result[w] = SpeakerEncoder.normalised(Array(out[(k * Self.dimension)..<((k + 1) * Self.dimension)]))
                }
            }
        }
        return result
    }

    /// The frames of one window less their mean over time (CAM++'s per-utterance normalisation).
    static func meanRemoved(_ features: [Float], frames: Range<Int>, bands: Int) -> [Float] {
        var mean = [Float](repeating: 0, count: bands)
        for f in frames { for b in 0..<bands { mean[b] += features[f * bands + b] } }
        let scale = 1 / Float(frames.count)
        var out = [Float](repeating: 0, count: frames.count * bands)
        for (row, f) in frames.enumerated() {
            for b in 0..<bands { out[row * bands + b] = features[f * bands + b] - mean[b] * scale }
        }
        return out
    }
}
