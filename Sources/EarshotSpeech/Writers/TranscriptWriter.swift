import Foundation

/// Renders a transcript in one output format.
public protocol TranscriptWriting: Sendable {
    var fileExtension: String { get }
    func render(_ transcript: Transcript) -> String
}

public enum TranscriptFormat: String, CaseIterable, Sendable {
    case txt, srt, vtt, json

    public var writer: any TranscriptWriting {
        switch self {
        case .txt: return PlainTextWriter()
        case .srt: return SubRipWriter()
        case .vtt: return WebVTTWriter()
        case .json: return JSONTranscriptWriter()
        }
    }
}

public struct PlainTextWriter: TranscriptWriting {
    public init() {}
    public let fileExtension = "txt"
    public func render(_ t: Transcript) -> String {
        t.segments.map { $0.text + "\n" }.joined()
    }
}

public struct SubRipWriter: TranscriptWriting {
    public init() {}
    public let fileExtension = "srt"
    public func render(_ t: Transcript) -> String {
        t.segments.enumerated().map { i, s in
            "\(i + 1)\n\(timestamp(s.start, ",")) --> \(timestamp(s.end, ","))\n\(s.text)\n\n"
        }.joined()
    }
}

public struct WebVTTWriter: TranscriptWriting {
    public init() {}
    public let fileExtension = "vtt"
    public func render(_ t: Transcript) -> String {
        "WEBVTT\n\n" + t.segments.map { s in
            "\(timestamp(s.start, ".")) --> \(timestamp(s.end, "."))\n\(s.text)\n\n"
        }.joined()
    }
}

public struct JSONTranscriptWriter: TranscriptWriting {
    public init() {}
    public let fileExtension = "json"

    private struct Document: Encodable {
        let source: String, model: String, duration: Double, text: String, segments: [TranscriptSegment]
    }

    public func render(_ t: Transcript) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let doc = Document(source: t.source, model: t.model, duration: (t.duration * 1000).rounded() / 1000,
                           text: t.text, segments: t.segments.map {
                               TranscriptSegment(start: ($0.start * 1000).rounded() / 1000,
                                                 end: ($0.end * 1000).rounded() / 1000, text: $0.text)
                           })
        return String(decoding: (try? encoder.encode(doc)) ?? Data(), as: UTF8.self) + "\n"
    }
}

/// HH:MM:SS,mmm (SRT) or HH:MM:SS.mmm (WebVTT).
func timestamp(_ seconds: Double, _ separator: String) -> String {
    let ms = Int((max(0, seconds) * 1000).rounded())
    return String(format: "%02d:%02d:%02d%@%03d", ms / 3_600_000, ms / 60_000 % 60, ms / 1000 % 60, separator, ms % 1000)
}
