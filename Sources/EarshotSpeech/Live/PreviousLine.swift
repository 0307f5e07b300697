import Foundation

/// The last line of a live stream (a final line, a Realtime turn), kept while it may be Whisper's prompt for the next.
/// Read after the line before, as Whisper reads a long recording window after window, a line keeps the speaker's
/// names, spellings and style across a pause: the 173 read utterances spoken live with tiny.en, 303 errors without it
/// and 275 with it, against 281 for the same files transcribed (BENCHMARKS.md, Live transcription).
struct PreviousLine {
    /// How far back a line still prompts the next (seconds from its end to the next one's start): as far as one of
    /// Whisper's windows reaches.
    static let reach = 30.0
    /// A line read at a fallback temperature above this prompts nothing (openai-whisper's
    /// `prompt_reset_on_temperature`), lest a misreading carry on.
    static let resetTemperature = 0.5

    let text: String
    /// Where the line's audio ends, in samples from the stream's start.
    let end: Int

    /// The line `reading` gives (its segments' text) ending at `end`; nil when it said nothing or was not read surely.
    init?(reading: [TranscriptSegment], end: Int) {
        let text = reading.map(\.text).joined(separator: " ")
        guard !text.isEmpty, reading.allSatisfy({ ($0.temperature ?? 0) <= Self.resetTemperature }) else { return nil }
        (self.text, self.end) = (text, end)
    }

    /// The text to prompt a line that starts at sample `start` with, if this line is near enough before it.
    func prompt(forLineAt start: Int, sampleRate: Int) -> String? {
        start - end <= Int(Self.reach * Double(sampleRate)) ? text : nil
    }

    /// The most of a line that prompts the next, in characters (its end, from a word's start; about 90 tokens).
    /// Whisper's prompt holds 223 tokens and keeps their end, so a long line (a Realtime turn may last two minutes)
    /// would otherwise push the caller's own prompt, which comes first, out of it.
    static let longestPrompt = 400

    /// `decoding` with `line` (when there is one; its last `longestPrompt` characters) after any prompt of the
    /// caller's own.
    static func decoding(_ decoding: SpeechRecognizer.Decoding, after line: String?) -> SpeechRecognizer.Decoding {
        guard let line else { return decoding }
        var kept = Substring(line)
        if kept.count > longestPrompt {
            kept = kept.suffix(longestPrompt)
            if let space = kept.firstIndex(of: " ") { kept = kept[kept.index(after: space)...] }
        }
        var prompted = decoding
        prompted.prompt = [decoding.prompt, String(kept)].compactMap { $0 }.joined(separator: " ")
        return prompted
    }
}
