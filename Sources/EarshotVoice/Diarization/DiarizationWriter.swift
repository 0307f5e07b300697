import EarshotCore
import Foundation

/// How `earshot diarize` writes who spoke when.
public enum DiarizationFormat: String, CaseIterable, Sendable {
    /// NIST's Rich Transcription Time Marked lines, what diarization scorers read:
    /// `SPEAKER <file id> 1 <start> <duration> <NA> <NA> <speaker> <NA> <NA>`.
    case rttm
    case json
    /// One line per turn: `00:01:02.500 – 00:01:07.250  Ruth`.
    case txt

    public func render(_ d: Diarization) -> String {
        switch self {
        case .rttm:
            let id = Self.fileID(d.source)
            return d.turns.map {
                String(format: "SPEAKER %@ 1 %.3f %.3f <NA> <NA> %@ <NA> <NA>\n", id, $0.start, $0.end - $0.start, $0.speaker.rttmToken)
            }.joined()
        case .json:
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            return String(decoding: (try? encoder.encode(d)) ?? Data(), as: UTF8.self) + "\n"
        case .txt:
            return d.turns.map { "\(clock($0.start)) – \(clock($0.end))  \($0.speaker)\n" }.joined()
        }
    }

    /// The file's base name without its extension ("stdin" for standard input), as RTTM's file id.
    public static func fileID(_ source: String) -> String {
        let name = source == "-" || source == "<stdin>" ? "stdin" : ((source as NSString).lastPathComponent as NSString).deletingPathExtension
        return name.rttmToken
    }

    private func clock(_ seconds: Double) -> String {
        let ms = Int((max(0, seconds) * 1000).rounded())
        return String(format: "%02d:%02d:%02d.%03d", ms / 3_600_000, ms / 60_000 % 60, ms / 1000 % 60, ms % 1000)
    }
}

extension String {
    /// RTTM is one turn a line, its fields separated by white space: a name or file name with spaces, tabs, line
    /// breaks or other invisible characters keeps them as underscores.
    var rttmToken: String {
        guard !isEmpty else { return "<NA>" }
        return String(String.UnicodeScalarView(unicodeScalars.map {
            $0.properties.isWhitespace || ShownText.needsEscape($0) ? "_" : $0
        }))
    }
}
