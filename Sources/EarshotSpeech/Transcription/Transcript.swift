/// A word with its time in seconds from the start of the audio, and how sure Whisper was of it (0–1).
/// `word` is written as Whisper writes it, with its leading space.
public struct TranscriptWord: Sendable, Codable, Equatable {
    public var word: String
    public var start: Double
    public var end: Double
    public var probability: Double
    /// Who said it, when the transcript was labelled by speaker (an enrolled name or `SPEAKER_nn`).
    public var speaker: String?

    public init(word: String, start: Double, end: Double, probability: Double) {
        self.word = word
        self.start = start
        self.end = end
        self.probability = probability
    }
}

/// A stretch of recognised speech with its times in seconds from the start of the audio. The optional fields
/// are Whisper's own measures (OpenAI's `verbose_json` names them `avg_logprob`, `no_speech_prob`,
/// `compression_ratio`, `temperature`, `tokens`); `words` is filled when word times were asked for.
public struct TranscriptSegment: Sendable, Codable, Equatable {
    public var start: Double
    public var end: Double
    public var text: String
    public var words: [TranscriptWord]?
    public var tokens: [Int]?
    public var averageLogProbability: Double?
    public var noSpeechProbability: Double?
    public var compressionRatio: Double?
    public var temperature: Double?
    /// Who said it, when the transcript was labelled by speaker (an enrolled name or `SPEAKER_nn`).
    public var speaker: String?

    public init(start: Double, end: Double, text: String, words: [TranscriptWord]? = nil) {
        self.start = start
        self.end = end
        self.text = text
        self.words = words
    }

    /// The segment cut short at `seconds`. Its words that began later share the time of the last word that began
    /// before (the alignment gave them the sound after the cut, which is not theirs).
    func ending(at seconds: Double) -> TranscriptSegment {
        var copy = self
        copy.end = min(end, max(start, seconds))
        guard var words, !words.isEmpty else { return copy }
        let late = words.firstIndex { $0.start >= copy.end } ?? words.count
        let shared = max(0, late - 1)
        let (from, to) = (min(words[shared].start, copy.end), min(words[shared].end, copy.end))
        let share = (to - from) / Double(words.count - shared)
        for i in shared..<words.count {
            words[i].start = from + Double(i - shared) * share
            words[i].end = from + Double(i - shared + 1) * share
        }
        copy.words = words
        return copy
    }

    /// The segment cut short at `pause`, from which the rest of the audio was read again as `reread`. The words that
    /// the alignment put after the pause are either spoken there, and then `reread` holds them again (a sentence
    /// with a long pause inside: "The Hon. … H. G. Bennet, who visited…" read twice), or spoken before it and put
    /// there by the alignment (Whisper ran "…in two weeks." on into the next sentence), and then they are not among
    /// the reading's first words. The first are dropped, the second kept (`ending(at:)`). nil: no word is left.
    /// `textOf` gives the text of Whisper tokens, to keep the tokens of the words kept.
    func cut(at pause: Range<Double>, rereadAs reread: String, textOf: ([Int]) -> String) -> TranscriptSegment? {
        guard let words, !words.isEmpty else { return ending(at: pause.lowerBound) }
        let late = words.firstIndex { $0.start >= (pause.lowerBound + pause.upperBound) / 2 } ?? words.count
        let lateWords = words[late...].map { Self.plain($0.word) }.filter { !$0.isEmpty }
        let opening = Set(reread.split(separator: " ").prefix(lateWords.count + 2).map { Self.plain(String($0)) })
        guard !lateWords.isEmpty, lateWords.filter(opening.contains).count * 2 > lateWords.count else { return ending(at: pause.lowerBound) }
        guard late > 0 else { return nil }
        var kept = self
        kept.words = Array(words.prefix(late))
        kept.text = kept.words!.map(\.word).joined().trimmingCharacters(in: .whitespaces)
        if let tokens {
            kept.tokens = (1...max(1, tokens.count)).lazy.map { Array(tokens.prefix($0)) }
                .first { textOf($0).trimmingCharacters(in: .whitespaces) == kept.text }
        }
        return kept.ending(at: pause.lowerBound)
    }

    /// A word as it is compared: lower case, letters and digits only.
    private static func plain(_ word: some StringProtocol) -> String {
        String(word.lowercased().filter { $0.isLetter || $0.isNumber })
    }

    /// The same segment moved `seconds` later (its words too).
    func shifted(by seconds: Double) -> TranscriptSegment {
        var copy = self
        copy.start += seconds
        copy.end += seconds
        copy.words = words?.map {
            var word = $0
            word.start += seconds
            word.end += seconds
            return word
        }
        return copy
    }
}

/// What transcription produces for one recording.
public struct Transcript: Sendable, Codable, Equatable {
    public var source: String
    public var model: String
    /// Length of the audio in seconds.
    public var duration: Double
    public var segments: [TranscriptSegment]
    /// The language Whisper wrote in (detected when asked for "auto").
    public var language: String?
    /// How sure the detection was (0–1), when the language was detected.
    public var languageProbability: Double?

    public init(source: String, model: String, duration: Double, segments: [TranscriptSegment], language: String? = nil) {
        self.source = source
        self.model = model
        self.duration = duration
        self.segments = segments
        self.language = language
    }

    /// The whole text, segments joined by spaces.
    public var text: String { segments.map(\.text).joined(separator: " ") }

    /// Every word with its time, when word times were asked for (empty otherwise).
    public var words: [TranscriptWord] { segments.flatMap { $0.words ?? [] } }
}
