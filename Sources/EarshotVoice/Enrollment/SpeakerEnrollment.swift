import EarshotCore
import EarshotSpeech
import Foundation

/// Enrols a person on the device: speech is found in each clip with the VAD, the frozen encoder turns
/// every 0.8 s window into a d-vector, and a head is trained (AdamW, cross-entropy) to tell this person's
/// windows from other speakers' — the background set and everyone already enrolled.
public final class SpeakerEnrollment: Sendable {
    public static let minimumClips = 3
    /// Short clips work (spoken digits), but accuracy grows with speech: 5 × 10 s is the recommendation.
    public static let minimumSpeechPerClip = 0.2
    public static let minimumTotalSpeech = 1.0

    public let encoder: SpeakerEncoder
    private let detector: SpeechProbabilities
    private let loader = AudioFileLoader(sampleRate: SpeakerEncoder.sampleRate)
    public let options: HeadTrainer.Options

    /// The head's training settings: a linear head on ~1,000 rows, where full-batch steps reach the optimum
    /// in a fraction of a second.
    public static let defaultOptions: HeadTrainer.Options = {
        var o = HeadTrainer.Options()
        o.fullBatch = true
        o.maxEpochs = 200
        o.learningRate = 1e-2
        o.weightDecay = 1e-2
        return o
    }()

    /// The diarization network, for the profile's voiceprint (nil when it is not installed: the profile is then named
    /// in conversations by its head, as profiles enrolled before voiceprints were).
    private let separator: DiarizationEncoder?

    public init(encoder: SpeakerEncoder, options: HeadTrainer.Options = SpeakerEnrollment.defaultOptions,
                store: ModelStore = ModelStore()) throws {
        self.encoder = encoder
        self.options = options
        detector = try SpeechProbabilities(store: store)
        separator = DiarizationEncoder.isInstalled(store: store) ? try DiarizationEncoder.shared(store: store) : nil
    }

    /// The speech in a recording (VAD regions joined), or an error naming the file when there is too little.
    public func speech(in path: String, minimum: Double = minimumSpeechPerClip) throws -> [Float] {
        try speech(in: try loader.load(path: path), source: path, minimum: minimum)
    }

    /// The speech in audio already in memory at the encoder's rate (a live stream); `source` names it in errors.
    public func speech(in loaded: AudioBuffer, source: String, minimum: Double = minimumSpeechPerClip) throws -> [Float] {
        // half a second of silence around the clip gives the VAD the context it needs to catch a short
        // word (an FSDD digit lasts 0.35 s); silence adds nothing to the speech found
        let margin = [Float](repeating: 0, count: loaded.sampleRate / 2)
        let audio = AudioBuffer(samples: margin + loaded.samples + margin, sampleRate: loaded.sampleRate)
        var speech: [Float] = []
        // frames the VAD network scores as speech, cut back to where the voice is loud (within 30 dB of
        // the loudest 10 ms): the widened frames and the margin add nothing of the speaker
        for region in try detector.regions(audio.samples[...]) {
            if let voiced = SpeechSegmenter.trimQuiet(region, audio: audio.samples[region.start..<region.end],
                                                      sampleRate: audio.sampleRate) {
                speech += audio.samples[voiced.start..<voiced.end]
            }
        }
        let seconds = Double(speech.count) / Double(SpeakerEncoder.sampleRate)
        guard seconds >= minimum else { throw VoiceError.notEnoughSpeech(path: source, seconds: seconds, needed: minimum) }
        return speech
    }

    /// Window d-vectors of the speech in a recording.
    public func windows(of path: String, minimumSpeech: Double = minimumSpeechPerClip) throws -> [[Float]] {
        try encoder.windowEmbeddings(try speech(in: path, minimum: minimumSpeech)[...])
    }

    /// Window d-vectors of the speech in audio held in memory at the encoder's rate.
    public func windows(of audio: AudioBuffer, source: String, minimumSpeech: Double = minimumSpeechPerClip) throws -> [[Float]] {
        try encoder.windowEmbeddings(try speech(in: audio, source: source, minimum: minimumSpeech)[...])
    }

    /// Trains a profile for `name` from `clips`, against `others` (window d-vectors of other speakers).
    public func enroll(name: String, clips: [String], others: [[Float]],
                       onEpoch: ((HeadTrainer.Epoch) -> Void)? = nil) throws -> VoiceProfile {
        try VoiceProfileStore.validate(name)
        guard clips.count >= Self.minimumClips else { throw VoiceError.tooFewClips(given: clips.count, needed: Self.minimumClips) }
        var positives: [[Float]] = [], prints: [[Float]] = []
        var seconds = 0.0
        for clip in clips {
            let speech = try speech(in: clip)
            seconds += Double(speech.count) / Double(SpeakerEncoder.sampleRate)
            positives += try encoder.windowEmbeddings(speech[...])
            if let separator {
                var track = SpeechWindowTrack(vad: detector, encoder: separator, naming: nil)
                try track.append(speech)
                try track.finish()
                prints += track.windows.map(\.vector)
            }
        }
        guard seconds >= Self.minimumTotalSpeech else {
            throw VoiceError.notEnoughSpeech(path: "these \(clips.count) clips", seconds: seconds, needed: Self.minimumTotalSpeech)
        }
        let started = Date()
        let head = train(positives: positives, negatives: others, onEpoch: onEpoch)
        return VoiceProfile(name: name, created: ISO8601DateFormatter().string(from: Date()),
                            encoder: SpeakerEncoder.modelIdentity, encoderHash: encoder.modelHash,
                            centroid: SpeakerEncoder.mean(positives), head: head.head, threshold: VoiceProfile.defaultThreshold,
                            windows: positives, clips: clips.count, speechSeconds: seconds, backgroundWindows: others.count,
                            trainingSeconds: Date().timeIntervalSince(started), voiceprint: prints.isEmpty ? nil : SpeakerEncoder.mean(prints))
    }

    /// The same person's head trained again against `others` (see `VoiceRoster`).
    public func retrained(_ profile: VoiceProfile, others: [[Float]]) -> VoiceProfile {
        var updated = profile
        updated.backgroundWindows = others.count
        let started = Date()
        updated.head = train(positives: profile.windows, negatives: others, onEpoch: nil).head
        updated.trainingSeconds = Date().timeIntervalSince(started)
        return updated
    }

    func train(positives: [[Float]], negatives: [[Float]], onEpoch: ((HeadTrainer.Epoch) -> Void)?)
        -> (head: ClassifierHead, history: [HeadTrainer.Epoch]) {
        let x = Matrix(stacking: negatives + positives)
        let y = [Int](repeating: 0, count: negatives.count) + [Int](repeating: 1, count: positives.count)
        return HeadTrainer(options: options).train(x: x, y: y, classes: 2, onEpoch: onEpoch)
    }
}

/// Scores recordings against enrolled profiles.
public struct VoiceVerifier: Sendable {
    public struct Score: Sendable, Equatable, Codable {
        public var name: String
        /// Mean over the recording's windows of the head's probability that it is this person.
        public var probability: Float
        /// Cosine of the recording's d-vector to the profile's centroid.
        public var cosine: Float
        public var threshold: Float
        public var accepted: Bool

        public init(name: String, probability: Float, cosine: Float, threshold: Float) {
            self.name = name
            self.probability = probability
            self.cosine = cosine
            self.threshold = threshold
            accepted = probability >= threshold
        }
    }

    public let encoder: SpeakerEncoder
    public init(encoder: SpeakerEncoder) { self.encoder = encoder }

    public func score(windows: [[Float]], against profile: VoiceProfile) -> Score {
        let p = profile.head.probabilities(Matrix(stacking: windows))
        let probability = (0..<p.rows).map { p[$0, 1] }.reduce(0, +) / Float(max(1, p.rows))
        return Score(name: profile.name, probability: probability,
                     cosine: SpeakerEncoder.cosine(SpeakerEncoder.mean(windows), profile.centroid), threshold: profile.threshold)
    }

    /// Every profile's score, best first.
    public func identify(windows: [[Float]], among profiles: [VoiceProfile]) -> [Score] {
        profiles.map { score(windows: windows, against: $0) }.sorted { $0.probability > $1.probability }
    }
}
