import EarshotSpeech
import Foundation

/// Writes notes out as files a person or another program can use: Markdown or plain text (title, date,
/// summary, action items, timed transcript), SubRip/WebVTT subtitles, or JSON. Files are written atomically.
public enum NotesExporter {
    public enum Format: String, Sendable, CaseIterable { case md, txt, srt, vtt, json }

    /// Writes one note into `directory` and returns the file's path.
    @discardableResult
    public static func export(_ note: Note, format: Format, to directory: URL) throws -> URL {
        let url = directory.appendingPathComponent("\(note.id)-\(slug(note.displayTitle)).\(format.rawValue)")
        let text = try render(note, format: format)
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try text.write(to: url, atomically: true, encoding: .utf8)
        } catch {
            throw NotesError.storage(path: url.path, problem: "cannot write the export (\(NotesStore.reason(error)))")
        }
        return url
    }

    public static func render(_ note: Note, format: Format) throws -> String {
        let transcript = Transcript(source: note.sourceName, model: "", duration: note.duration, segments: note.segments)
        switch format {
        case .srt: return SubRipWriter().render(transcript)
        case .vtt: return WebVTTWriter().render(transcript)
        case .json:
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            return String(decoding: try encoder.encode(document(note)), as: UTF8.self) + "\n"
        case .md, .txt:
            let md = format == .md
            var out = md ? "# \(note.displayTitle)\n\n" : "\(note.displayTitle)\n\n"
            out += "\(md ? "*" : "")\(dateText(note.created)) · \(durationText(note.duration))"
            out += note.tags.isEmpty ? "" : " · " + note.tags.map { "#\($0)" }.joined(separator: " ")
            out += md ? "*\n\n" : "\n\n"
            if !note.speakers.isEmpty { out += (md ? "**Speakers:** " : "Speakers: ") + note.speakers.joined(separator: ", ") + "\n\n" }
            // a template other than the default says so: its sections follow the summary's sentences
            let written = note.template == SummaryTemplate.defaultName ? "" : " (\(note.template))"
            if !note.summary.isEmpty { out += (md ? "## Summary\(written)\n\n" : "Summary\(written)\n") + note.summary + "\n\n" }
            if !note.actions.isEmpty {
                out += md ? "## Action items\n\n" : "Action items\n"
                // numbered in plain text as `notes done` takes them
                out += note.actions.enumerated().map { i, a in md ? "- [\(a.done ? "x" : " ")] \(a.line)" : "\(i + 1). \(a.line)\(a.done ? " (done)" : "")" }
                    .joined(separator: "\n") + "\n\n"
            }
            out += md ? "## Transcript\n\n" : "Transcript\n"
            // numbered in plain text as `notes edit --segment` takes them
            out += note.segments.enumerated().map { i, s in
                (md ? "" : "\(i + 1). ") + "[\(durationText(s.start))] " + (s.speaker.map { md ? "**\($0):** " : "\($0): " } ?? "") + s.text
            }.joined(separator: md ? "\n\n" : "\n") + "\n"
            return out
        }
    }

    /// The note as a JSON-ready document (also `notes show --json`).
    public static func document(_ note: Note) -> NoteDocument {
        NoteDocument(id: note.id, title: note.title, titleBy: note.titleBy, created: ISO8601DateFormatter().string(from: note.created),
                     source: note.sourceName, duration: (note.duration * 100).rounded() / 100, tags: note.tags, summary: note.summary,
                     template: note.template, actions: note.actions, transcript: note.transcript, segments: note.segments,
                     languageModel: note.languageModel.isEmpty ? nil : note.languageModel,
                     stages: note.stages.map { .init(stage: $0.stage.rawValue, state: $0.state.rawValue, attempts: $0.attempts, error: $0.error) })
    }

    public struct NoteDocument: Codable, Sendable {
        public struct Stage: Codable, Sendable { var stage: String; var state: String; var attempts: Int; var error: String? }
        var id: Int
        var title: String
        var titleBy: String
        var created: String
        var source: String
        var duration: Double
        var tags: [String]
        var summary: String
        /// The summary template the note is written with.
        var template: String
        var actions: [ActionItem]
        var transcript: String
        var segments: [TranscriptSegment]
        var languageModel: String?
        var stages: [Stage]
    }

    static func slug(_ title: String) -> String {
        let folded = title.folding(options: [.diacriticInsensitive, .caseInsensitive], locale: nil)
        let words = folded.components(separatedBy: CharacterSet.alphanumerics.inverted).filter { !$0.isEmpty }
        return words.isEmpty ? "note" : words.prefix(8).joined(separator: "-")
    }

    // one formatter for every line of a long list, not one per note
    private static let dateFormatter: DateFormatter = {
        let f = DateFormatter()
        f.dateFormat = "yyyy-MM-dd HH:mm"
        return f
    }()

    public static func dateText(_ date: Date) -> String { dateFormatter.string(from: date) }

    public static func durationText(_ seconds: Double) -> String {
        let s = Int(seconds.rounded(.down))
        return s >= 3600 ? String(format: "%d:%02d:%02d", s / 3600, s / 60 % 60, s % 60) : String(format: "%02d:%02d", s / 60, s % 60)
    }
}
