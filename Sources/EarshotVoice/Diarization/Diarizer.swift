import EarshotCore
import EarshotSpeech
import Foundation

/// Who spoke when: finds the speech in a recording, gives every second of it a CAM++ speaker vector (every
/// 0.75 s), groups the vectors by voice with the number of voices found from the network's own score statistics
/// (or given), and names each voice whose CAM++ voiceprint matches an enrolled person's.
/// Recordings are read a block at a time. Safe to share between tasks; each call is independent.
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
        /// Only these people may name a voice (nil: everyone enrolled): each an enrolled profile, or a short
        /// clip of their voice (OpenAI's `known_speaker_references[]`) matched by cosine.
        public var known: [KnownSpeaker]?
        /// The mean cosine below which two groups of speech are different voices (default 0.45; higher finds
        /// more voices). Ignored when `numSpeakers` is given.
        public var threshold: Float?
        /// The cosine of CAM++ voiceprints from which an enrolled person names a voice (default `enrolledCosine`;
        /// higher names fewer voices, more surely).
        public var namingCosine: Float?
        /// People known by their voiceprints alone — those named in the notes (`NotesLibrary.namedVoices`) — who name
        /// a voice as an enrolled profile with a voiceprint does. An enrolled profile of the same name is used instead.
        public var voices: [NamedVoice] = []
        public init(numSpeakers: Int? = nil, minSpeakers: Int? = nil, maxSpeakers: Int? = nil, names: Bool = true) {
            self.numSpeakers = numSpeakers
            self.minSpeakers = minSpeakers
            self.maxSpeakers = maxSpeakers
            self.names = names
        }
    }

    /// Someone who may name a voice: by their enrolled profile, or by a clip of their voice.
    public struct KnownSpeaker: Sendable, Equatable {
        public var name: String
        /// A few seconds of their speech; nil means their enrolled profile.
        public var reference: AudioBuffer?
        public init(name: String, reference: AudioBuffer? = nil) {
            self.name = name
            self.reference = reference
        }
    }

    /// Someone known by the CAM++ voiceprints of their voice heard before (each a recording's voice); a voice is
    /// theirs when its voiceprint's mean cosine to these reaches the naming threshold.
    public struct NamedVoice: Sendable, Equatable {
        public var name: String
        public var voiceprints: [[Float]]
        public init(name: String, voiceprints: [[Float]]) {
            self.name = name
            self.voiceprints = voiceprints
        }
    }

    /// A voice's d-vector (the mean of its 0.8 s windows) and a reference clip's agree at least this much when
    /// they are one person: the network gives 0.80–0.89 for the same speaker, 0.32–0.47 for two.
    public static let referenceCosine: Float = 0.6

    /// A voice's CAM++ voiceprint and an enrolled person's agree at least this much when the voice is theirs: the
    /// threshold that links one voice across notes, as precision comes first here too (a stranger named as someone
    /// else is worse than a person left unnamed). Enrolled people's voices measured 0.86–0.98 against their
    /// profiles, strangers' best matches under 0.3 (bench/named_diarization.py, BENCHMARKS.md "Named diarization").
    public static let enrolledCosine: Float = 0.75

    /// The most speakers a recording is split into.
    public static let maxSpeakers = 20

    public let profiles: VoiceProfileStore
    /// Names voices: enrolled profiles and reference clips are scored on its d-vectors.
    private let encoder: SpeakerEncoder
    /// Tells voices apart.
    private let separator: DiarizationEncoder
    private let vad: SpeechProbabilities

    public init(profiles: VoiceProfileStore? = nil, store: ModelStore = ModelStore()) throws {
        encoder = try SpeakerEncoder.shared(store: store)
        separator = try DiarizationEncoder.shared(store: store)
        vad = try SpeechProbabilities(store: store)
        self.profiles = (profiles ?? VoiceProfileStore(store: store)).checking(against: encoder)
    }

    /// Diarizes a recording in any format Earshot reads ("-" for standard input). `progress` gets the seconds
    /// read and the recording's length when its container says.
    public func diarize(file path: String, options: Options = Options(),
                        progress: (@Sendable (Double, Double?) -> Void)? = nil) throws -> Diarization {
        try Self.check(options)
        let people = try namingProfiles(options)
        let stream = try AudioFileStream(path: path, sampleRate: SpeakerEncoder.sampleRate)
        var track = SpeechWindowTrack(vad: vad, encoder: separator, naming: namingEncoder(options, people))
        while let block = try stream.read() {
            try track.append(block)
            progress?(stream.durationRead, stream.expectedDuration)
        }
        try track.finish()
        return try result(track, source: stream.name, duration: track.seconds, options: options, people: people)
    }

    /// Diarizes audio already in memory; `source` names it in the result and in errors.
    public func diarize(audio: AudioBuffer, source: String, options: Options = Options()) throws -> Diarization {
        try Self.check(options)
        let people = try namingProfiles(options)
        return try result(try track(of: audio, naming: namingEncoder(options, people)), source: source,
                          duration: audio.duration, options: options, people: people)
    }

    /// What `diarize` would refuse in `options` (a speaker count out of range, a known name nobody enrolled), found
    /// without reading any audio: a server checks a request before it starts the work.
    public func validate(_ options: Options) throws {
        try Self.check(options)
        _ = try namingProfiles(options)
    }

    /// The enrolled profiles that may name a voice, read once per call: none when names are off, the ones
    /// `known` names when it is given (an unknown name is an error before any audio is read), else everyone.
    private func namingProfiles(_ options: Options) throws -> [VoiceProfile] {
        guard options.names else { return [] }
        let enrolled = profiles.loadAll().profiles
        guard let known = options.known else { return enrolled }
        let byProfile = Set(known.filter { $0.reference == nil }.map(\.name.precomposedStringWithCanonicalMapping))
        let everyone = enrolled.map(\.name) + options.voices.map(\.name).filter { !enrolled.map(\.name).contains($0) }
        if let unknown = byProfile.subtracting(everyone).sorted().first {
            throw VoiceError.unknownProfile(unknown, known: everyone)
        }
        return enrolled.filter { byProfile.contains($0.name) }
    }

    /// The d-vector encoder when a voice may be named on d-vectors (by a profile without a voiceprint, or a
    /// reference clip); nil spares computing d-vectors no one will score.
    private func namingEncoder(_ options: Options, _ people: [VoiceProfile]) -> SpeakerEncoder? {
        guard options.names else { return nil }
        let clips = options.known?.contains { $0.reference != nil } ?? false
        return people.contains(where: { $0.voiceprint == nil }) || clips ? encoder : nil
    }

    /// The speech and speaker vectors of audio in memory.
    private func track(of audio: AudioBuffer, naming: SpeakerEncoder?) throws -> SpeechWindowTrack {
        let audio = audio.sampleRate == SpeakerEncoder.sampleRate ? audio : try Resampler.resample(audio, to: SpeakerEncoder.sampleRate)
        var track = SpeechWindowTrack(vad: vad, encoder: separator, naming: naming)
        let next = audio.blockReader(size: audio.sampleRate * 4)
        while let block = next() { try track.append(block) }
        try track.finish()
        return track
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

    private func result(_ track: SpeechWindowTrack, source: String, duration: Double, options: Options,
                        people: [VoiceProfile]) throws -> Diarization {
        var settings = SpeakerClustering.Settings()
        settings.numSpeakers = options.numSpeakers
        if let threshold = options.threshold { settings.threshold = threshold }
        settings.minSpeakers = options.minSpeakers ?? 1
        settings.maxSpeakers = options.maxSpeakers ?? Self.maxSpeakers
        settings.hop = track.hop
        let labels = SpeakerClustering.labels(track.windows, settings: settings)
        let turns = SpeakerTurns().turns(regions: track.regions, windows: track.windows, labels: labels)
        let voices = Set(turns.map(\.voice)).sorted { a, b in
            turns.first { $0.voice == a }!.start < turns.first { $0.voice == b }!.start
        }
        // each CAM++ window's voice, found once: every voice's voiceprint averages its own
        let windowVoices = track.windows.map { w in turns.first { $0.start <= w.center && w.center < $0.end }?.voice }
        let prints = Dictionary(uniqueKeysWithValues: voices.map { ($0, voiceprint(of: $0, windows: track.windows, voices: windowVoices)) })
        let named = options.names ? try names(for: voices, prints: prints, windows: track.namingWindows, turns: turns, enrolled: people,
                                              byVoice: namingVoices(options, people), known: options.known,
                                              cosine: options.namingCosine ?? Self.enrolledCosine) : [:]
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
                            probability: named[voice]?.probability,
                            voiceprint: prints[voice] ?? nil)
        }.sorted { $0.seconds > $1.seconds }
        return Diarization(source: source, duration: rounded(duration), turns: speakerTurns, speakers: speakers)
    }

    /// The people known by voiceprints alone who may name a voice: not those enrolled (their profile speaks for them),
    /// only those `known` names when it is given.
    private func namingVoices(_ options: Options, _ enrolled: [VoiceProfile]) -> [NamedVoice] {
        let profiles = Set(enrolled.map(\.name))
        let allowed = options.known.map { Set($0.filter { $0.reference == nil }.map(\.name.precomposedStringWithCanonicalMapping)) }
        return options.voices.filter { !$0.voiceprints.isEmpty && !profiles.contains($0.name) && allowed?.contains($0.name) != false }
    }

    /// Each voice an enrolled profile (or a known speaker's clip) accepts, the pairs furthest above their
    /// threshold first, each person naming at most one voice. A profile with a voiceprint names the voice whose
    /// CAM++ voiceprint (`prints`) it matches at `cosine` or more — the network that told the voices apart decides
    /// whose they are; an older profile scores the voice's d-vector windows (those whose middle falls in its turns)
    /// with its head.
    private func names(for voices: [Int], prints: [Int: [Float]?], windows: [SpeechWindowTrack.Window], turns: [SpeakerTurns.Turn],
                       enrolled: [VoiceProfile], byVoice people: [NamedVoice], known: [KnownSpeaker]?,
                       cosine threshold: Float) throws -> [Int: (name: String, probability: Float)] {
        var references: [(name: String, vector: [Float])] = []
        for speaker in known ?? [] {
            guard let clip = speaker.reference else { continue }
            references.append((speaker.name, try referenceVector(clip, name: speaker.name)))
        }
        guard !enrolled.isEmpty || !references.isEmpty || !people.isEmpty else { return [:] }
        let labels = windows.map { w in turns.first { $0.start <= w.center && w.center < $0.end }?.voice }
        let verifier = VoiceVerifier(encoder: encoder)
        // (voice, name, how far above its threshold, the probability or cosine to report)
        var pairs: [(voice: Int, name: String, margin: Float, score: Float)] = []
        for voice in voices {
            let mine = windows.indices.filter { labels[$0] == voice }.map { windows[$0].vector }
            for profile in enrolled {
                if let print = profile.voiceprint {
                    guard let voiceprint = prints[voice] ?? nil else { continue }
                    let cosine = SpeakerEncoder.cosine(voiceprint, print)
                    if cosine >= threshold { pairs.append((voice, profile.name, cosine - threshold, cosine)) }
                } else if !mine.isEmpty {
                    let score = verifier.score(windows: mine, against: profile)
                    if score.accepted { pairs.append((voice, profile.name, score.probability - score.threshold, score.probability)) }
                }
            }
            if let voiceprint = prints[voice] ?? nil {
                for person in people {
                    let cosine = person.voiceprints.map { SpeakerEncoder.cosine(voiceprint, $0) }.reduce(0, +) / Float(person.voiceprints.count)
                    if cosine >= threshold { pairs.append((voice, person.name, cosine - threshold, cosine)) }
                }
            }
            guard !mine.isEmpty else { continue }
            let centroid = SpeakerEncoder.mean(mine)
            for reference in references {
                let cosine = SpeakerEncoder.cosine(centroid, reference.vector)
                if cosine >= Self.referenceCosine { pairs.append((voice, reference.name, cosine - Self.referenceCosine, cosine)) }
            }
        }
        var result: [Int: (name: String, probability: Float)] = [:]
        var used = Set<String>()
        for pair in pairs.sorted(by: { $0.margin > $1.margin }) where result[pair.voice] == nil && !used.contains(pair.name) {
            result[pair.voice] = (pair.name, pair.score)
            used.insert(pair.name)
        }
        return result
    }

    /// A voice's CAM++ vectors averaged: the windows whose middle falls in its turns (`voices`: each window's voice),
    /// nil when none does.
    private func voiceprint(of voice: Int, windows: [SpeechWindowTrack.Window], voices: [Int?]) -> [Float]? {
        let mine = windows.indices.filter { voices[$0] == voice }.map { windows[$0].vector }
        return mine.isEmpty ? nil : SpeakerEncoder.mean(mine)
    }

    /// A reference clip's d-vector: the mean of the windows of its speech.
    private func referenceVector(_ clip: AudioBuffer, name: String) throws -> [Float] {
        let track = try track(of: clip, naming: encoder)
        guard !track.namingWindows.isEmpty else {
            throw VoiceError.notEnoughSpeech(path: "the reference clip of \(name)", seconds: 0, needed: track.minimumSpeech)
        }
        return SpeakerEncoder.mean(track.namingWindows.map(\.vector))
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
