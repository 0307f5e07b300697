import EarshotCore
import EarshotSpeech
import Foundation

/// Who spoke when: finds the speech in a recording, gives every 0.8 s of it a speaker vector (the same frozen
/// network voice ID enrols with), groups the vectors by voice with the number of voices found from the
/// network's own score statistics (or given), and names each voice an enrolled profile accepts. Recordings are
/// read a block at a time. Safe to share between tasks; each call is independent.
///
///     let diarizer = try Diarizer()
///     let result = try diarizer.diarize(file: "meeting.m4a")
///     for turn in result.turns { print(turn.start, turn.end, turn.speaker) }
public final class Diarizer: Sendable {
    public struct Options: Sendable, Equatable {
        /// The number of speakers when the caller knows it; otherwise it is found, within `minSpeakers…maxSpeakers`.
        public var numSpeakers: Int?
        public var minSpeakers: Int?
        public var maxSpeakers: Int?
        /// Name voices by the enrolled profiles (false: every voice is `SPEAKER_nn`).
        public var names = true
        /// Only these enrolled people may name a voice (nil: everyone enrolled).
        public var candidates: [String]?
        /// The mean cosine below which two groups of speech are different voices (default 0.5; higher finds
        /// more voices). Ignored when `numSpeakers` is given.
        public var threshold: Float?
        public init(numSpeakers: Int? = nil, minSpeakers: Int? = nil, maxSpeakers: Int? = nil, names: Bool = true) {
            self.numSpeakers = numSpeakers
            self.minSpeakers = minSpeakers
            self.maxSpeakers = maxSpeakers
            self.names = names
        }
    }

    /// The most speakers a recording is split into.
    public static let maxSpeakers = 20

    public let profiles: VoiceProfileStore
    private let encoder: SpeakerEncoder
    private let vad: SpeechProbabilities
    private let store: ModelStore

    public init(profiles: VoiceProfileStore? = nil, store: ModelStore = ModelStore()) throws {
        encoder = try SpeakerEncoder.shared(store: store)
        vad = try SpeechProbabilities(store: store)
        self.profiles = profiles ?? VoiceProfileStore(store: store)
        self.store = store
    }

    /// Diarizes a recording in any format Earshot reads ("-" for standard input). `progress` gets the seconds
    /// read and the recording's length when its container says.
    public func diarize(file path: String, options: Options = Options(),
                        progress: (@Sendable (Double, Double?) -> Void)? = nil) throws -> Diarization {
        try Self.check(options)
        let stream = try AudioFileStream(path: path, sampleRate: SpeakerEncoder.sampleRate)
        var track = SpeechWindowTrack(vad: vad, encoder: encoder)
        while let block = try stream.read() {
            try track.append(block)
            progress?(stream.durationRead, stream.expectedDuration)
        }
        try track.finish()
        return try result(track, source: stream.name, duration: track.seconds, options: options)
    }

    /// Diarizes audio already in memory; `source` names it in the result and in errors.
    public func diarize(audio: AudioBuffer, source: String, options: Options = Options()) throws -> Diarization {
        try Self.check(options)
        let audio = audio.sampleRate == SpeakerEncoder.sampleRate ? audio : try Resampler.resample(audio, to: SpeakerEncoder.sampleRate)
        var track = SpeechWindowTrack(vad: vad, encoder: encoder)
        let next = audio.blockReader(size: audio.sampleRate * 4)
        while let block = next() { try track.append(block) }
        try track.finish()
        return try result(track, source: source, duration: audio.duration, options: options)
    }

    static func check(_ options: Options) throws {
        let counts = [options.numSpeakers, options.minSpeakers, options.maxSpeakers].compactMap { $0 }
        if let bad = counts.first(where: { !(1...maxSpeakers).contains($0) }) {
            throw DiarizationError.badCount("\(bad) speakers: give a number from 1 to \(maxSpeakers)")
        }
        if let low = options.minSpeakers, let high = options.maxSpeakers, low > high {
            throw DiarizationError.badCount("at least \(low) and at most \(high) speakers cannot both hold")
        }
    }

    private func result(_ track: SpeechWindowTrack, source: String, duration: Double, options: Options) throws -> Diarization {
        var settings = SpeakerClustering.Settings()
        settings.numSpeakers = options.numSpeakers
        if let threshold = options.threshold { settings.threshold = threshold }
        settings.minSpeakers = options.minSpeakers ?? 1
        settings.maxSpeakers = options.maxSpeakers ?? Self.maxSpeakers
        let labels = SpeakerClustering.labels(track.windows, settings: settings)
        let turns = SpeakerTurns().turns(regions: track.regions, windows: track.windows, labels: labels)
        let voices = Set(turns.map(\.voice)).sorted { a, b in
            turns.first { $0.voice == a }!.start < turns.first { $0.voice == b }!.start
        }
        let named = options.names ? try names(for: voices, windows: track.windows, labels: labels, candidates: options.candidates) : [:]
        var labelOf: [Int: String] = [:]
        var next = 1
        for voice in voices {
            if let name = named[voice]?.name { labelOf[voice] = name } else {
                labelOf[voice] = String(format: "SPEAKER_%02d", next)
                next += 1
            }
        }
        let speakerTurns = turns.map { SpeakerTurn(start: rounded($0.start), end: rounded($0.end), speaker: labelOf[$0.voice]!) }
        let speakers = voices.map { voice in
            DiarizedSpeaker(label: labelOf[voice]!, enrolled: named[voice] != nil,
                            seconds: rounded(turns.filter { $0.voice == voice }.map { $0.end - $0.start }.reduce(0, +)),
                            probability: named[voice]?.probability)
        }.sorted { $0.seconds > $1.seconds }
        return Diarization(source: source, duration: rounded(duration), turns: speakerTurns, speakers: speakers)
    }

    /// Each voice an enrolled profile accepts, most confident pairs first, each person at most once.
    private func names(for voices: [Int], windows: [SpeechWindowTrack.Window], labels: [Int],
                       candidates: [String]?) throws -> [Int: (name: String, probability: Float)] {
        var enrolled = profiles.loadAll().profiles
        if let candidates {
            let wanted = Set(candidates.map(\.precomposedStringWithCanonicalMapping))
            if let unknown = wanted.subtracting(enrolled.map(\.name)).sorted().first {
                throw VoiceError.unknownProfile(unknown, known: enrolled.map(\.name))
            }
            enrolled = enrolled.filter { wanted.contains($0.name) }
        }
        guard !enrolled.isEmpty else { return [:] }
        let verifier = VoiceVerifier(encoder: encoder)
        var pairs: [(voice: Int, name: String, probability: Float)] = []
        for voice in voices {
            let mine = windows.indices.filter { labels[$0] == voice }.map { windows[$0].vector }
            for profile in enrolled {
                let score = verifier.score(windows: mine, against: profile)
                if score.accepted { pairs.append((voice, profile.name, score.probability)) }
            }
        }
        var result: [Int: (name: String, probability: Float)] = [:]
        var used = Set<String>()
        for pair in pairs.sorted(by: { $0.probability > $1.probability }) where result[pair.voice] == nil && !used.contains(pair.name) {
            result[pair.voice] = (pair.name, pair.probability)
            used.insert(pair.name)
        }
        return result
    }

    private func rounded(_ x: Double) -> Double { (x * 1000).rounded() / 1000 }
}

public enum DiarizationError: Error, LocalizedError, Equatable {
    case badCount(String)
    case badReference(String)

    public var errorDescription: String? {
        switch self {
        case let .badCount(detail): return "cannot diarize with \(detail)"
        case let .badReference(detail): return "the reference RTTM cannot be read: \(detail)"
        }
    }
}
