import EarshotCore
import Foundation

/// The silero VAD network run directly through ONNX Runtime: one speech probability per 32 ms frame.
/// sherpa-onnx's detector (used for transcription) adds its own start/end rules on top of these, and
/// they drop sub-second words: a spoken digit whose frames score 0.9 comes back as no region at all.
/// Callers that judge a short clip (voice enrolment) read the probabilities themselves.
public final class SpeechProbabilities: Sendable {
    public static let sampleRate = 16_000
    public static let frameSamples = 512
    /// silero v5+ reads each frame with the last 64 samples of the previous one in front.
    static let contextSamples = 64
    static let stateShape = [2, 1, 128]

    private let session: InferenceSession

    public init(store: ModelStore = ModelStore()) throws {
        session = try InferenceSession(path: try VADModel.path(in: store), threads: 1)
    }

    private static let instances = SharedInstances<URL, SpeechProbabilities>()

    /// The process's loaded network for `store`: streams keep their own state (`StreamState`), so any number share
    /// one (ONNX Runtime runs one session from many threads at once).
    public static func shared(store: ModelStore = ModelStore()) throws -> SpeechProbabilities {
        try instances.instance(for: store.home) { try SpeechProbabilities(store: store) }
    }

    /// What the network carries from one frame to the next, so a long recording can be scored a block at a time.
    public struct StreamState: Sendable {
        var state = [Float](repeating: 0, count: SpeechProbabilities.stateShape.reduce(1, *))
        var context = [Float](repeating: 0, count: SpeechProbabilities.contextSamples)
        public init() {}
    }

    /// Probabilities for each whole 512-sample frame of 16 kHz audio, in order.
    public func frames(_ samples: ArraySlice<Float>) throws -> [Float] {
        var stream = StreamState()
        return try frames(samples, continuing: &stream)
    }

    /// Probabilities for each whole 512-sample frame of `samples`, which follow the audio `stream` has seen
    /// (a partial frame at the end is not scored: the caller keeps it for the next block).
    public func frames(_ samples: ArraySlice<Float>, continuing stream: inout StreamState) throws -> [Float] {
        let rate = Tensor(shape: [], int64s: [Int64(Self.sampleRate)])
        var probabilities: [Float] = []
        var start = samples.startIndex
        while start + Self.frameSamples <= samples.endIndex {
            let frame = Array(samples[start..<(start + Self.frameSamples)])
            let out = try session.run(["input": Tensor(shape: [1, Self.contextSamples + Self.frameSamples], floats: stream.context + frame),
                                       "state": Tensor(shape: Self.stateShape, floats: stream.state),
                                       "sr": rate], outputs: ["output", "stateN"])
            probabilities.append(out[0].floats.first ?? 0)
            stream.state = out[1].floats
            stream.context = Array(frame.suffix(Self.contextSamples))
            start += Self.frameSamples
        }
        return probabilities
    }

    /// The stretches of `samples` (indices into it) whose frames score at least `threshold`, each widened
    /// by `widen` frames on both sides (the network fires a frame late and stops a frame early).
    public func regions(_ samples: ArraySlice<Float>, threshold: Float = 0.5, widen: Int = 2) throws -> [SpeechRegion] {
        let p = try frames(samples)
        var regions: [SpeechRegion] = []
        for (i, value) in p.enumerated() where value >= threshold {
            let start = samples.startIndex + max(0, i - widen) * Self.frameSamples
            let end = min(samples.endIndex, samples.startIndex + (i + 1 + widen) * Self.frameSamples)
            if let last = regions.last, start <= last.end {
                regions[regions.count - 1].end = max(last.end, end)
            } else {
                regions.append(SpeechRegion(start: start, end: end))
            }
        }
        return regions
    }
}
