import Foundation

/// Text that came from outside (a name someone typed, a file name, a request path, a field of a request) as Earshot
/// shows it again: on a terminal, in a text log line, in an error message. Control characters and the invisible
/// direction marks are written as `\u{…}` escapes, so no input can colour the terminal, start a new log line that
/// looks like the server's own, or reverse what follows it; and a value echoed in an error is cut to a length a
/// person reads, with its full size said.
public enum ShownText {
    /// The longest stretch of an outside value that an error message quotes.
    public static let echoLimit = 120

    /// `text` with every control character (C0, DEL, C1), line and paragraph separator and direction mark or
    /// override written as `\u{XX}`; everything else as it is.
    /// With `keepingLineBreaks`, "\n" stays: for a document of many lines (a note shown on a terminal).
    public static func escaped(_ text: String, keepingLineBreaks: Bool = false) -> String {
        let escapes = { (scalar: Unicode.Scalar) in needsEscape(scalar) && !(keepingLineBreaks && scalar == "\n") }
        guard text.unicodeScalars.contains(where: escapes) else { return text }
        var out = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if escapes(scalar) {
                out.append(contentsOf: "\\u{\(String(scalar.value, radix: 16, uppercase: true))}".unicodeScalars)
            } else {
                out.append(scalar)
            }
        }
        return String(out)
    }

    /// `text` escaped and cut to `limit` characters, saying how long it was when it was cut: what an error quotes
    /// of a value it refuses (a 900 KB field comes back as its first characters, not whole).
    public static func echoed(_ text: String, limit: Int = echoLimit) -> String {
        let shown = escaped(String(text.prefix(limit)))
        return text.count > limit ? "\(shown)… (\(text.utf8.count) bytes)" : shown
    }

    /// Whether a scalar is one that must not reach a terminal or a log line as it is.
    public static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F: return true  // C0 and C1 controls: ESC, newline, tab, NUL, CSI
        case 0x2028, 0x2029: return true  // line and paragraph separators
        case 0x200E, 0x200F, 0x061C: return true  // direction marks
        case 0x202A...0x202E, 0x2066...0x2069: return true  // direction embeddings, overrides and isolates
        default: return false
        }
    }
}

/// The one rule for a name a person gives: a voice in a note, a known speaker of a request, a person. A name is
/// printed in terminals, logs, subtitles (`<v Name>`), RTTM lines and pages, so it is one line of printable
/// characters, not blank, at most `maximumCharacters`, with no direction overrides. Every door (CLI, HTTP API,
/// Realtime) checks names here.
public enum NameRule {
    public static let maximumCharacters = 80

    /// The name trimmed and composed (NFC), or why it cannot be a name, in words.
    public static func checked(_ name: String) -> Result<String, NameProblem> {
        let trimmed = name.trimmingCharacters(in: .whitespacesAndNewlines).precomposedStringWithCanonicalMapping
        if trimmed.isEmpty { return .failure(.blank) }
        if trimmed.count > maximumCharacters { return .failure(.tooLong(trimmed.count)) }
        if trimmed.unicodeScalars.contains(where: ShownText.needsEscape) { return .failure(.unprintable) }
        return .success(trimmed)
    }

    public enum NameProblem: Error, Equatable, CustomStringConvertible {
        case blank, tooLong(Int), unprintable

        public var description: String {
            switch self {
            case .blank: return "it is blank"
            case let .tooLong(count): return "it is \(count) characters long (at most \(NameRule.maximumCharacters))"
            case .unprintable: return "it holds a control character, a line break or a direction mark"
            }
        }
    }
}
