import Foundation

/// Renders a transcript in one output format.
public protocol TranscriptWriting: Sendable {
    var fileExtension: String { get }
    func render(_ transcript: Transcript) -> String
}

public enum TranscriptFormat: String, CaseIterable, Sendable {
    case txt, srt, vtt, json

    /// The writer; subtitles are cut into cues as `layout` says.
    public func writer(layout: CueLayout = CueLayout()) -> any TranscriptWriting {
        switch self {
        case .txt: return PlainTextWriter()
        case .srt: return SubRipWriter(layout: layout)
        case .vtt: return WebVTTWriter(layout: layout)
        case .json: return JSONTranscriptWriter()
        }
    }

    public var writer: any TranscriptWriting { writer() }
}

/// How subtitles are cut into cues (a transcript labelled by speaker puts `Name: ` before each cue's text in SRT,
/// which has no voice markup, and WebVTT's voice tag `<v Name>` in WebVTT). Without word times, a cue is a segment. With them (`--words`), a segment is
/// split into cues of at most `maxWords` words and `maxCharacters` characters (openai-whisper's
/// `--max_words_per_line` / `--max_line_width`, whisper.cpp's `--max-len`), each timed by its own words; WebVTT
/// cues can also time every word (`<c>` tags, for karaoke-style highlighting).
public struct CueLayout: Sendable, Equatable {
    public var maxWords: Int?
    public var maxCharacters: Int?
    public var highlightWords: Bool
    public init(maxWords: Int? = nil, maxCharacters: Int? = nil, highlightWords: Bool = false) {
        self.maxWords = maxWords
        self.maxCharacters = maxCharacters
        self.highlightWords = highlightWords
    }

    struct Cue { var start: Double; var end: Double; var text: String; var words: [TranscriptWord]; var speaker: String? }

    func cues(_ transcript: Transcript) -> [Cue] {
        transcript.segments.flatMap { segment -> [Cue] in
            guard let words = segment.words, !words.isEmpty, maxWords != nil || maxCharacters != nil || highlightWords else {
                return [Cue(start: segment.start, end: segment.end, text: segment.text, words: segment.words ?? [], speaker: segment.speaker)]
            }
            var cues: [Cue] = []
            var current: [TranscriptWord] = []
            func text(_ words: [TranscriptWord]) -> String {
                words.map(\.word).joined().trimmingCharacters(in: .whitespaces)
            }
            for word in words {
                let longer = current + [word]
                if !current.isEmpty, (maxWords.map { longer.count > $0 } ?? false) || (maxCharacters.map { text(longer).count > $0 } ?? false) {
                    cues.append(Cue(start: current[0].start, end: current.last!.end, text: text(current), words: current, speaker: segment.speaker))
                    current = []
                }
                current.append(word)
            }
            if !current.isEmpty {
                cues.append(Cue(start: current[0].start, end: current.last!.end, text: text(current), words: current, speaker: segment.speaker))
            }
            return cues
        }
    }
}

/// One line per segment; a transcript labelled by speaker reads `Name: text`.
public struct PlainTextWriter: TranscriptWriting {
    public init() {}
    public let fileExtension = "txt"
    public func render(_ t: Transcript) -> String {
        t.segments.map { ($0.speaker.map { "\($0): " } ?? "") + $0.text + "\n" }.joined()
    }
}

public struct SubRipWriter: TranscriptWriting {
    public let layout: CueLayout
    public init(layout: CueLayout = CueLayout()) { self.layout = layout }
    public let fileExtension = "srt"
    public func render(_ t: Transcript) -> String {
        layout.cues(t).enumerated().map { i, cue in
            "\(i + 1)\n\(timestamp(cue.start, ",")) --> \(timestamp(cue.end, ","))\n\(cue.speaker.map { "\($0): " } ?? "")\(cue.text)\n\n"
        }.joined()
    }
}

public struct WebVTTWriter: TranscriptWriting {
    public let layout: CueLayout
    public init(layout: CueLayout = CueLayout()) { self.layout = layout }
    public let fileExtension = "vtt"
    public func render(_ t: Transcript) -> String {
        "WEBVTT\n\n" + layout.cues(t).map { cue in
            "\(timestamp(cue.start, ".")) --> \(timestamp(cue.end, "."))\n\(cue.speaker.map { "<v \(voiceName($0))>" } ?? "")\(text(of: cue))\n\n"
        }.joined()
    }

    /// A voice tag's annotation ends at '>' and may not hold a newline (WebVTT's voice span syntax).
    private func voiceName(_ name: String) -> String {
        name.replacingOccurrences(of: ">", with: "").replacingOccurrences(of: "\n", with: " ")
    }

    /// The cue's text; with highlighting, each word after the first behind a timestamp tag: `<00:00:01.200><c> word</c>`.
    private func text(of cue: CueLayout.Cue) -> String {
        guard layout.highlightWords, !cue.words.isEmpty else { return cue.text }
        return cue.words.enumerated().map { i, word in
            let w = i == 0 ? word.word.trimmingCharacters(in: .whitespaces) : word.word
            return i == 0 ? "<c>\(w)</c>" : "<\(timestamp(word.start, "."))><c>\(w)</c>"
        }.joined()
    }
}

public struct JSONTranscriptWriter: TranscriptWriting {
    public init() {}
    public let fileExtension = "json"

    /// `language_probability` only where the language was detected (`--language auto`), as faster-whisper reports it.
    private struct Document: Encodable {
        let source: String, model: String, language: String?, languageProbability: Double?, duration: Double, text: String
        let segments: [Segment]

        enum CodingKeys: String, CodingKey {
            case source, model, language, duration, text, segments
            case languageProbability = "language_probability"
        }
    }
    /// A segment as `transcribe --json` writes it: its times, text, speaker, (when asked for) words, and Whisper's own
    /// measures of it under OpenAI's `verbose_json` names (a low `avg_logprob` with a high `no_speech_prob` is often
    /// a noise read as words), times and probabilities rounded to thousandths. `earshot batch` writes the same shape.
    public struct Segment: Codable, Sendable, Equatable {
        public let start: Double, end: Double, text: String, speaker: String?, words: [TranscriptWord]?
        public var avgLogprob: Double?, noSpeechProb: Double?, compressionRatio: Double?, temperature: Double?

        enum CodingKeys: String, CodingKey {
            case start, end, text, speaker, words, temperature
            case avgLogprob = "avg_logprob", noSpeechProb = "no_speech_prob", compressionRatio = "compression_ratio"
        }
    }

    /// Whisper's measures of a segment's reading under OpenAI's `verbose_json` names, rounded to thousandths (the
    /// temperature as it is): what `transcribe --json` segments and live final lines (`LiveEvent`) carry.
    struct Measures: Codable, Equatable {
        var avgLogprob: Double?, noSpeechProb: Double?, compressionRatio: Double?, temperature: Double?

        enum CodingKeys: String, CodingKey {
            case temperature
            case avgLogprob = "avg_logprob", noSpeechProb = "no_speech_prob", compressionRatio = "compression_ratio"
        }

        init(of s: TranscriptSegment) {
            (avgLogprob, noSpeechProb, compressionRatio, temperature) =
                (s.averageLogProbability.map(ms), s.noSpeechProbability.map(ms), s.compressionRatio.map(ms), s.temperature)
        }

        func apply(to s: inout TranscriptSegment) {
            (s.averageLogProbability, s.noSpeechProbability, s.compressionRatio, s.temperature) = (avgLogprob, noSpeechProb, compressionRatio, temperature)
        }
    }

    public static func segments(of t: Transcript) -> [Segment] {
        t.segments.map { s in
            var segment = Segment(start: ms(s.start), end: ms(s.end), text: s.text, speaker: s.speaker, words: s.words?.map {
                var word = TranscriptWord(word: $0.word, start: ms($0.start), end: ms($0.end), probability: ms($0.probability))
                word.speaker = $0.speaker
                return word
            })
            let measures = Measures(of: s)
            (segment.avgLogprob, segment.noSpeechProb, segment.compressionRatio, segment.temperature) =
                (measures.avgLogprob, measures.noSpeechProb, measures.compressionRatio, measures.temperature)
            return segment
        }
    }

    static func ms(_ x: Double) -> Double { (x * 1000).rounded() / 1000 }

    public func render(_ t: Transcript) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let doc = Document(source: t.source, model: t.model, language: t.language, languageProbability: t.languageProbability.map(Self.ms),
                           duration: Self.ms(t.duration), text: t.text, segments: Self.segments(of: t))
        return String(decoding: (try? encoder.encode(doc)) ?? Data(), as: UTF8.self) + "\n"
    }
}

/// HH:MM:SS,mmm (SRT) or HH:MM:SS.mmm (WebVTT).
func timestamp(_ seconds: Double, _ separator: String) -> String {
    let ms = Int((max(0, seconds) * 1000).rounded())
    return String(format: "%02d:%02d:%02d%@%03d", ms / 3_600_000, ms / 60_000 % 60, ms / 1000 % 60, separator, ms % 1000)
}
