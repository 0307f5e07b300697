import EarshotCore
import EarshotSpeech
import Foundation

/// Which frozen network turns a classifier's windows into features: YAMNet (sounds in general: AudioSet)
/// or the d-vector speaker encoder (voices: who is speaking, male or female, child or adult). A trained
/// model records its network, so it is always used with the one it was trained on.
public enum SoundFeatures: String, Sendable, Codable, CaseIterable {
    case yamnet
    case speaker

    /// The network a model file names (`embeddingModel`), if this Earshot has it.
    public init?(modelIdentity: String) {
        switch modelIdentity {
        case SoundEmbedder.modelIdentity: self = .yamnet
        case SpeakerEncoder.modelIdentity: self = .speaker
        default: return nil
        }
    }

    public var modelIdentity: String {
        switch self {
        case .yamnet: return SoundEmbedder.modelIdentity
        case .speaker: return SpeakerEncoder.modelIdentity
        }
    }

    /// The audio front-end the network reads (recorded in trained models).
    public var frontEndSettings: LogMelSpectrogram.Settings {
        switch self {
        case .yamnet: return .yamnet
        case .speaker: return .speakerEncoder
        }
    }

    public var dimension: Int {
        switch self {
        case .yamnet: return SoundEmbedder.embeddingSize
        case .speaker: return SpeakerEncoder.dimension
        }
    }

    private struct Key: Hashable, Sendable { let features: SoundFeatures; let home: URL }
    private static let loaded = SharedInstances<Key, any WindowEmbedder>()

    /// YAMNet itself, loaded once per process: the built-in classifier and the features suggestion read its
    /// AudioSet scores, which only this embedder has.
    public static func yamnet(store: ModelStore = ModelStore()) throws -> SoundEmbedder {
        // the .yamnet entry is always made as a SoundEmbedder below
        try SoundFeatures.yamnet.embedder(store: store) as! SoundEmbedder
    }

    /// The network, loaded once per process (embedders are read-only and safe to share between tasks).
    public func embedder(store: ModelStore = ModelStore()) throws -> any WindowEmbedder {
        try Self.loaded.instance(for: Key(features: self, home: store.home)) {
            switch self {
            case .yamnet: return try SoundEmbedder(store: store)
            case .speaker: return try SpeakerWindowEmbedder(encoder: SpeakerEncoder.shared(store: store),
                                                            speech: SpeechProbabilities.shared(store: store))
            }
        }
    }
}

/// A frozen network that cuts a recording into analysis windows and gives each a feature vector.
public protocol WindowEmbedder: AnyObject, Sendable {
    var features: SoundFeatures { get }
    /// The installed network build (`ModelStore.buildIdentity`), recorded in trained models.
    var modelHash: String { get }
    /// The front-end the network reads, recorded in trained models.
    var frontEndSettings: LogMelSpectrogram.Settings { get }
    /// The shortest window the network can embed, in samples at 16 kHz.
    var minimumWindowSamples: Int { get }
    /// Windows of `audio` (resampled to 16 kHz if needed). Audio shorter than one window is padded with
    /// silence to one window.
    func windows(of audio: AudioBuffer, settings: WindowSettings) throws -> [SoundWindow]
}

extension WindowEmbedder {
    public static var sampleRate: Int { 16_000 }

    /// Samples of one analysis window of `settings`.
    public func windowSamples(_ settings: WindowSettings) -> Int {
        max(minimumWindowSamples, Int(settings.duration * Double(Self.sampleRate)))
    }

    /// `audio` at 16 kHz, padded with silence to at least one window.
    func prepared(_ audio: AudioBuffer, settings: WindowSettings) throws -> [Float] {
        let audio = audio.sampleRate == Self.sampleRate ? audio : try Resampler.resample(audio, to: Self.sampleRate)
        let windowSamples = windowSamples(settings)
        var samples = audio.samples
        if samples.count < windowSamples { samples += [Float](repeating: 0, count: windowSamples - samples.count) }
        return samples
    }
}

extension WindowSettings {
    /// Window lengths in seconds a classifier can use: one YAMNet patch to half a minute.
    public static let durations = 0.975...30.0
    /// Overlaps of consecutive windows: none to 90% (the hop stays a tenth of the window or more).
    public static let overlaps = 0.0...0.9

    /// Start sample of each window over `count` samples: every hop, and the last window ends at the end.
    public func starts(count: Int, windowSamples: Int, sampleRate: Int) -> [Int] {
        guard count >= windowSamples else { return [] }
        let hopSamples = max(1, Int(hop * Double(sampleRate)))
        var starts = Array(stride(from: 0, through: count - windowSamples, by: hopSamples))
        if let last = starts.last, last + windowSamples < count { starts.append(count - windowSamples) }
        return starts
    }
}
