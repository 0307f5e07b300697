import EarshotCore
import Foundation

/// Voice recognition, the one door to it: enrol a person from a few clips (a head trained on the device
/// over the frozen speaker network), then verify a recording against them or identify who is speaking,
/// and export a person's model. An actor over one profile folder, so one instance can be shared by any
/// number of tasks and enrolments never interleave; the speaker network is loaded once per process.
///
///     let voices = try VoiceID()
///     try await voices.enroll("alice", clips: ["a1.wav", "a2.wav", "a3.wav"])
///     let score = try await voices.verify("alice", file: "door.wav")
///     print(score.accepted)
public actor VoiceID {
    public nonisolated let profiles: VoiceProfileStore
    public nonisolated let background: BackgroundSpeakers
    private let enrollment: SpeakerEnrollment
    private let verifier: VoiceVerifier
    private var backgroundWindows: [[Float]]?
    /// Enrolment trains for seconds: on a queue of its own, not on the shared cooperative threads.
    private let executor = DispatchQueueExecutor(label: "earshot.voice-id")
    public nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    /// - Parameters:
    ///   - profiles: where profiles are kept (default `EARSHOT_HOME/voice/profiles`).
    ///   - background: other speakers' recordings each person is trained against (default: the ones setup installs).
    public init(profiles: VoiceProfileStore? = nil, background: BackgroundSpeakers? = nil, store: ModelStore = ModelStore()) throws {
        let encoder = try SpeakerEncoder.shared(store: store)
        enrollment = try SpeakerEnrollment(encoder: encoder, store: store)
        verifier = VoiceVerifier(encoder: encoder)
        self.profiles = (profiles ?? VoiceProfileStore(store: store)).checking(against: encoder)
        self.background = background ?? BackgroundSpeakers(store: store)
    }

    /// Sentences for people to read aloud while recording enrolment clips.
    public static let readingPrompts = [
        "The quick brown fox jumps over the lazy dog while the farmer watches from the gate.",
        "Please remember to water the plants on the balcony every morning this week.",
        "My favourite season is autumn, when the leaves turn red and the air smells of rain.",
        "We took the night train north and woke up to mountains covered in fresh snow.",
        "Numbers like seven, forty two and one hundred are easy to say but hard to hear.",
        "She opened the old wooden box and found letters written by her grandfather.",
        "Turn left at the bakery, cross the bridge, and the library is on your right.",
    ]

    /// The background speakers ready for enrolment: how many recordings and speaker vectors.
    public struct Background: Sendable, Codable, Equatable {
        public var files: Int
        public var windows: Int
    }

    /// Computes the background speakers' d-vectors (cached on disk by recordings, network and the code that reads
    /// them; setup does this, so it is quick afterwards). - Parameter progress: files done and total, while they are
    /// computed.
    @discardableResult
    public func prepare(progress: (@Sendable (Int, Int) -> Void)? = nil) throws -> Background {
        Background(files: background.files().count, windows: try backgroundVectors(progress: progress).count)
    }

    private func backgroundVectors(progress: (@Sendable (Int, Int) -> Void)?) throws -> [[Float]] {
        if let backgroundWindows { return backgroundWindows }
        let windows = try background.windows(using: enrollment, progress: progress)
        backgroundWindows = windows
        return windows
    }

    /// What an enrolment trained.
    public struct Enrollment: Sendable, Codable, Equatable {
        public var name: String
        public var clips: Int
        public var speechSeconds: Double
        public var windows: Int
        /// Windows of other speakers (background and everyone enrolled) the head was trained against.
        public var otherWindows: Int
        /// Training the head alone; `seconds` is the whole enrolment (speech detection, vectors, training).
        public var trainingSeconds: Double
        public var seconds: Double

        private enum CodingKeys: String, CodingKey {
            case name, clips, windows, seconds
            case speechSeconds = "speech_seconds", otherWindows = "other_windows", trainingSeconds = "training_seconds"
        }
    }

    /// Enrols `name` from `clips` (3 or more; about 10 s of speech each in 5 clips is best) and saves the
    /// profile, replacing an earlier one; the heads of people enrolled before are retrained with this voice
    /// among their others.
    @discardableResult
    public func enroll(_ name: String, clips: [String], progress: (@Sendable (Int, Int) -> Void)? = nil) throws -> Enrollment {
        let name = name.precomposedStringWithCanonicalMapping  // "Zoë" typed either way is one person
        try VoiceProfileStore.validate(name)
        let others = try backgroundVectors(progress: progress)
        let started = Date()
        let (profile, otherCount) = try VoiceRoster(enrollment: enrollment, store: profiles).enroll(name: name, clips: clips, background: others)
        return Enrollment(name: name, clips: profile.clips, speechSeconds: profile.speechSeconds, windows: profile.windows.count,
                          otherWindows: otherCount, trainingSeconds: profile.trainingSeconds ?? 0,
                          seconds: Date().timeIntervalSince(started))
    }

    /// Records one enrolment clip of `seconds` from `source` into the WAV file `url` (e.g. while showing a
    /// reading prompt); enrol with the clips' paths afterwards.
    public func recordClip(from source: any AudioSource, to url: URL, seconds: Double = 10,
                           onChunk: (@Sendable (_ chunk: [Float], _ seconds: Double) -> Void)? = nil) async throws -> URL {
        try await AudioRecorder.record(source, to: url, maxSeconds: seconds, onChunk: onChunk).url
    }

    /// Is the speech in `file` the enrolled person? `threshold` overrides the profile's.
    public func verify(_ name: String, file: String, threshold: Float? = nil) throws -> VoiceVerifier.Score {
        try score(name, windows: try enrollment.windows(of: file), threshold: threshold)
    }

    /// Is the speech in `audio` (held in memory, e.g. the last seconds of a live stream) the enrolled person?
    /// `source` names the audio in errors.
    public func verify(_ name: String, audio: AudioBuffer, source: String, threshold: Float? = nil) throws -> VoiceVerifier.Score {
        let audio = audio.sampleRate == SpeakerEncoder.sampleRate ? audio : try Resampler.resample(audio, to: SpeakerEncoder.sampleRate)
        return try score(name, windows: try enrollment.windows(of: audio, source: source), threshold: threshold)
    }

    private func score(_ name: String, windows: [[Float]], threshold: Float?) throws -> VoiceVerifier.Score {
        var profile = try profiles.load(name)
        if let threshold { profile.threshold = threshold }
        return verifier.score(windows: windows, against: profile)
    }

    /// Whether `name` (in either Unicode form) is enrolled.
    public func isEnrolled(_ name: String) -> Bool {
        profiles.names().contains(name.precomposedStringWithCanonicalMapping)
    }

    /// Who is speaking in a recording: every enrolled person's score, best first; `speaker` is the best
    /// one accepted, or nil when nobody is.
    public struct Identification: Sendable, Codable, Equatable {
        public var source: String
        public var speaker: String?
        public var ranking: [VoiceVerifier.Score]
        /// Profiles that could not be read and were left out.
        public var damaged: [String]

        private enum CodingKeys: String, CodingKey { case source, speaker, ranking, damaged }

        public func encode(to encoder: Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(source, forKey: .source)
            try c.encode(speaker, forKey: .speaker)  // null, not absent, when nobody is accepted
            try c.encode(ranking, forKey: .ranking)
            try c.encode(damaged, forKey: .damaged)
        }
    }

    public func identify(file: String) throws -> Identification {
        let (all, damaged) = profiles.loadAll()
        guard !all.isEmpty else { throw VoiceError.noProfiles }
        let ranking = verifier.identify(windows: try enrollment.windows(of: file), among: all)
        return Identification(source: file, speaker: ranking.first { $0.accepted }?.name, ranking: ranking, damaged: damaged)
    }

    /// Who is speaking in audio held in memory (a line of a live stream): as `identify(file:)`; `source` names it.
    public func identify(audio: AudioBuffer, source: String) throws -> Identification {
        let (all, damaged) = profiles.loadAll()
        guard !all.isEmpty else { throw VoiceError.noProfiles }
        let audio = audio.sampleRate == SpeakerEncoder.sampleRate ? audio : try Resampler.resample(audio, to: SpeakerEncoder.sampleRate)
        let ranking = verifier.identify(windows: try enrollment.windows(of: audio, source: source), among: all)
        return Identification(source: source, speaker: ranking.first { $0.accepted }?.name, ranking: ranking, damaged: damaged)
    }

    /// The enrolled profiles, and the names of damaged ones.
    public func enrolled() -> (profiles: [VoiceProfile], damaged: [String]) { profiles.loadAll() }

    /// Throws `VoiceError.noProfiles` when nobody is enrolled: what naming voices needs before it starts.
    public func requireSomeoneEnrolled() throws {
        guard !profiles.loadAll().profiles.isEmpty else { throw VoiceError.noProfiles }
    }

    public func remove(_ name: String) throws { try profiles.remove(name) }

    /// Writes `name`'s model as a self-contained ONNX file: audio features in, this person's probability
    /// out. Returns the exported profile (its threshold is the one to apply to that probability).
    @discardableResult
    public func export(_ name: String, to path: String) throws -> VoiceProfile {
        let profile = try profiles.load(name)
        try VoiceProfileExporter.export(profile, encoder: enrollment.encoder, to: path)
        return profile
    }
}
