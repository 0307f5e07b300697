import Foundation

/// One stretch of one person's speech, in seconds from the start of the recording.
public struct SpeakerTurn: Sendable, Codable, Equatable {
    public var start: Double
    public var end: Double
    /// The enrolled name, or `SPEAKER_01`, `SPEAKER_02`… for voices nobody enrolled.
    public var speaker: String

    public init(start: Double, end: Double, speaker: String) {
        self.start = start
        self.end = end
        self.speaker = speaker
    }
}

/// A voice found in a recording.
public struct DiarizedSpeaker: Sendable, Codable, Equatable {
    public var label: String
    /// Whether `label` is a person's name: their enrolled profile, or the clip of a known speaker, accepted this voice.
    public var enrolled: Bool
    /// Seconds of speech given to this voice.
    public var seconds: Double
    /// How surely the enrolled person is this voice, when named: the cosine of the two CAM++ voiceprints (the profile's
    /// head's probability over the voice's speech for a profile enrolled before voiceprints were kept).
    public var probability: Float?
    /// The voice as the network that tells voices apart hears it (CAM++): the normalised mean of its windows, without
    /// what the recording's voices share taken out, so voiceprints of one person from two recordings compare
    /// (by `SpeakerEncoder.cosine`). Kept in memory only: not part of the JSON a diarization is written as.
    public var voiceprint: [Float]?

    private enum CodingKeys: String, CodingKey { case label, enrolled, seconds, probability }

    public init(label: String, enrolled: Bool, seconds: Double, probability: Float? = nil, voiceprint: [Float]? = nil) {
        self.label = label
        self.enrolled = enrolled
        self.seconds = seconds
        self.probability = probability
        self.voiceprint = voiceprint
    }
}

/// Who spoke when in one recording: turns in time order (one speaker at a time), and the voices found,
/// the most talkative first.
public struct Diarization: Sendable, Codable, Equatable {
    public var source: String
    /// Length of the audio in seconds.
    public var duration: Double
    public var turns: [SpeakerTurn]
    public var speakers: [DiarizedSpeaker]

    public init(source: String, duration: Double, turns: [SpeakerTurn], speakers: [DiarizedSpeaker]) {
        self.source = source
        self.duration = duration
        self.turns = turns
        self.speakers = speakers
    }

    /// The speaker who talks most between `start` and `end`; for a stretch no turn touches, the nearest turn's
    /// speaker within `reach` seconds (a word Whisper places in a pause the detector heard as silence), else nil.
    public func speaker(from start: Double, to end: Double, reach: Double = 1.0) -> String? {
        var overlap: [String: Double] = [:]
        for turn in turns where turn.end > start && turn.start < end {
            overlap[turn.speaker, default: 0] += min(end, turn.end) - max(start, turn.start)
        }
        if let best = overlap.max(by: { $0.value < $1.value || ($0.value == $1.value && $0.key > $1.key) }) { return best.key }
        let middle = (start + end) / 2
        let nearest = turns.min { distance($0, to: middle) < distance($1, to: middle) }
        return nearest.flatMap { distance($0, to: middle) <= reach ? $0.speaker : nil }
    }

    private func distance(_ turn: SpeakerTurn, to time: Double) -> Double {
        time < turn.start ? turn.start - time : max(0, time - turn.end)
    }
}
