import EarshotCore
import Foundation

/// What live transcription reports while audio flows in.
public enum LiveEvent: Sendable, Equatable {
    /// Text so far of the speech still going on (replaced by the next partial or the final).
    case partial(text: String, start: Double, end: Double)
    /// A finished stretch of speech. `delay` is the wall-clock time from the arrival of its last
    /// audio to this event (VAD end-of-speech wait plus decoding).
    case final(segment: TranscriptSegment, delay: Double)
}

/// JSON: `{"type": "partial", "text", "start", "end"}` or `{"type": "final", "text", "start", "end", "delay"}`, a
/// final line with `"speaker"` when it was labelled and with Whisper's measures of its reading under the names
/// `transcribe --json` gives them (`avg_logprob`, `no_speech_prob`, `compression_ratio`, `temperature`).
extension LiveEvent: Codable {
    private enum CodingKeys: String, CodingKey { case type, text, start, end, delay, speaker }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case let .partial(text, start, end):
            try c.encode("partial", forKey: .type)
            try c.encode(text, forKey: .text)
            try c.encode(start, forKey: .start)
            try c.encode(end, forKey: .end)
        case let .final(segment, delay):
            try c.encode("final", forKey: .type)
            try c.encode(segment.text, forKey: .text)
            try c.encode(segment.start, forKey: .start)
            try c.encode(segment.end, forKey: .end)
            try c.encode(delay, forKey: .delay)
            try c.encodeIfPresent(segment.speaker, forKey: .speaker)
            try JSONTranscriptWriter.Measures(of: segment).encode(to: encoder)  // beside the keys above
        }
    }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let (text, start, end) = (try c.decode(String.self, forKey: .text), try c.decode(Double.self, forKey: .start),
                                  try c.decode(Double.self, forKey: .end))
        switch try c.decode(String.self, forKey: .type) {
        case "partial": self = .partial(text: text, start: start, end: end)
        case "final":
            var segment = TranscriptSegment(start: start, end: end, text: text)
            segment.speaker = try c.decodeIfPresent(String.self, forKey: .speaker)
            try JSONTranscriptWriter.Measures(from: decoder).apply(to: &segment)
            self = .final(segment: segment, delay: try c.decode(Double.self, forKey: .delay))
        case let other: throw DecodingError.dataCorruptedError(forKey: .type, in: c, debugDescription: "unknown live event type '\(other)'")
        }
    }
}

/// One live stream's transcription: the VAD decides where utterances end; while one is going on the audio
/// so far is re-read about once a second (by audio time, so a fast pipe gets partials too), and when it ends it is
/// read once more, as a file's window is, for the final line. Run by `Transcriber.live`, which owns the recognizer.
public struct LiveTranscription {
    /// How often partial text comes, and how far back it reaches.
    public struct Settings: Sendable, Codable, Equatable {
        /// Audio between partial re-reads, in seconds.
        public var partialInterval = 1.0
        /// Audio before the detector fired that a partial includes (the detector fires late).
        public var lookback = 0.6
        public init(partialInterval: Double = 1.0, lookback: Double = 0.6) {
            self.partialInterval = partialInterval
            self.lookback = lookback
        }
    }

    let settings: Settings
    let detector: VoiceActivityDetector

    /// `partials` decodes the text while speech goes on (quick), `finals` each utterance once it has ended.
    func run(_ source: any AudioSource, recognizer: SpeechRecognizer, partials: SpeechRecognizer.Decoding,
             finals: SpeechRecognizer.Decoding, isolation: isolated (any Actor)? = #isolation,
             emit: (LiveEvent) -> Void) async throws {
        let rate = SpeechRecognizer.sampleRate
        let segmenter = SpeechSegmenter()
        var history = AudioHistory(keep: Int(SpeechRecognizer.maxSeconds + 5) * rate)
        var speechStart: Int?  // where the current utterance is taken to begin
        var nextPartial = 0
        detector.reset()

        var previous: PreviousLine?  // the last final line, while it may prompt the next one
        func finish(_ regions: [SpeechRegion]) throws {
            for heard in regions {
                speechStart = nil
                guard let region = SpeechSegmenter.trimQuiet(heard, audio: history.samples(from: heard.start, to: heard.end),
                                                             sampleRate: rate) else { continue }
                let range = segmenter.readRange(of: region, sampleRate: rate, totalSamples: history.end)
                let read = history.samples(from: range.start, to: range.end)
                let prompt = previous?.prompt(forLineAt: region.start, sampleRate: rate)
                let reading = try recognizer.transcribe(window: read, as: PreviousLine.decoding(finals, after: prompt)).segments
                let delay = Date().timeIntervalSince(history.arrival(of: region.end - 1))
                let text = reading.map(\.text).joined(separator: " ")
                previous = PreviousLine(reading: reading, end: region.end)
                if !text.isEmpty {
                    emit(.final(segment: Self.line(start: Double(region.start) / Double(rate), end: Double(region.end) / Double(rate),
                                                   text: text, reading: reading),
                                delay: delay))
                }
            }
        }

        for try await chunk in source.chunks(sampleRate: rate) {
            if Task.isCancelled { break }
            history.append(chunk)
            try finish(detector.accept(chunk[...]))
            guard detector.isSpeaking else { continue }
            let now = history.end
            if speechStart == nil {
                speechStart = max(0, now - Int(settings.lookback * Double(rate)) - Int(0.3 * Double(rate)))
                nextPartial = now + Int(settings.partialInterval * Double(rate)) / 2
            }
            if now >= nextPartial, let start = speechStart {
                let text = try recognizer.recognize(history.samples(from: start, to: now), as: partials)
                if !text.isEmpty && !RepetitionCheck.looksLikeALoop(text) {
                    emit(.partial(text: text, start: Double(start) / Double(rate), end: Double(now) / Double(rate)))
                }
                nextPartial = history.end + Int(settings.partialInterval * Double(rate))
            }
        }
        try finish(detector.flush())
    }

    /// A final line: the text of every segment of its reading, and Whisper's measures of the least sure of them (the
    /// lowest average log-probability; a window's rest read again is a reading of its own), so that a line a client
    /// would drop as noise is not hidden behind a surer first segment.
    static func line(start: Double, end: Double, text: String, reading: [TranscriptSegment]) -> TranscriptSegment {
        var line = TranscriptSegment(start: start, end: end, text: text)
        if let doubtful = reading.filter({ $0.averageLogProbability != nil }).min(by: { $0.averageLogProbability! < $1.averageLogProbability! }) {
            line.averageLogProbability = doubtful.averageLogProbability
            line.noSpeechProbability = doubtful.noSpeechProbability
            line.compressionRatio = doubtful.compressionRatio
            line.temperature = doubtful.temperature
        }
        return line
    }
}
