import Foundation

/// Where the part of a reply that its reader keeps ends, so that generation stops there rather than at its token
/// limit: the note writer keeps a summary's first sentences, and the models went on writing. The 1.5B model's
/// summaries of a minute of speech ran to a third sentence (~40 tokens, ~2 s on 2 cores, then thrown away); the 135M
/// model repeated itself up to the 120-token limit. Checked after every token, in the process that runs the model.
public enum ReplyEnd: Codable, Sendable, Equatable {
    /// Once the text after the last `label` (all of it while there is none) holds `count` whole sentences and the
    /// next one has begun (`ReplyText.sentences`). A label the model writes later starts the count again.
    case sentences(Int, after: String?)

    /// Whether a reply that begins with `text` has reached this end.
    public func isReached(by text: String) -> Bool {
        switch self {
        case let .sentences(count, label):
            return ReplyText.sentencesOnOneLine(label.map { ReplyText.afterLabel($0, in: text) } ?? text).count > count
        }
    }
}

/// How replies are read: shared by the stop rule above and the note writer, so that a reply stopped early reads
/// exactly as it would have read whole.
package enum ReplyText {
    /// Sentences: text up to ".", "!" or "?" followed by a space or the end (Foundation on Linux has no sentence
    /// enumeration; Whisper's and the models' punctuation are regular enough for this). The last may be unfinished.
    package static func sentences(_ text: String) -> [String] {
        var result: [String] = [], current = ""
        let characters = Array(text)
        for (i, c) in characters.enumerated() {
            current.append(c)
            if ".!?".contains(c), i + 1 == characters.count || characters[i + 1] == " " {
                let s = current.trimmingCharacters(in: .whitespacesAndNewlines)
                if !s.isEmpty { result.append(s) }
                current = ""
            }
        }
        let rest = current.trimmingCharacters(in: .whitespacesAndNewlines)
        if !rest.isEmpty { result.append(rest) }
        return result.isEmpty ? [text] : result
    }

    /// A reply without everything up to its last `label` ("Summary:"): a model sometimes answers in its examples'
    /// format, labels and all, and then may write the other answers before the one asked for.
    package static func afterLabel(_ label: String, in reply: String) -> String {
        guard let found = reply.range(of: label, options: [.caseInsensitive, .backwards]) else { return reply }
        return String(reply[found.upperBound...]).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The sentences of a reply whose line breaks are read as spaces.
    package static func sentencesOnOneLine(_ text: String) -> [String] {
        sentences(text.replacingOccurrences(of: "\n", with: " ").trimmingCharacters(in: .whitespaces))
    }

    /// The first `count` sentences, on one line.
    package static func firstSentences(_ text: String, count: Int) -> String {
        sentencesOnOneLine(text).prefix(count).joined(separator: " ")
    }
}
