import Foundation

/// When a recording was made: what its container says (phones and recorders write it), else the file's modification
/// time (which copying with care keeps; a file's creation time is not kept on Linux). Imports date their notes so.
public struct RecordingDate: Sendable, Equatable {
    public enum Source: String, Sendable, Codable {
        /// The container's creation time (MP4/M4A, QuickTime, Matroska/WebM, Ogg and FLAC comments, MP3 ID3, WAV).
        case container
        /// The file's modification time.
        case file
    }

    public var date: Date
    public var source: Source

    public init(date: Date, source: Source) {
        self.date = date
        self.source = source
    }

    /// The tags that say when, in the order they are trusted: the capture time phones write first.
    static let tags = ["com.apple.quicktime.creationdate", "creation_time", "date"]

    /// Reads the date of the recording at `path`; nil only when the file cannot be read at all.
    public static func of(path: String) -> RecordingDate? {
        let tags = FFprobe.tags(path)
        for key in Self.tags {
            if let value = tags[key], let date = parse(value) { return RecordingDate(date: date, source: .container) }
        }
        // Broadcast WAV keeps its date and time apart
        if let day = tags["origination_date"], let time = tags["origination_time"],
           let date = parse(day.replacingOccurrences(of: ":", with: "-") + "T" + time.replacingOccurrences(of: "-", with: ":")) {
            return RecordingDate(date: date, source: .container)
        }
        guard let modified = (try? FileManager.default.attributesOfItem(atPath: path))?[.modificationDate] as? Date else { return nil }
        return RecordingDate(date: modified, source: .file)
    }

    /// A tag's date (`DateText`). Muxers write 1904-01-01 or 1970-01-01 for "unknown", and a clock never set can be
    /// years off: dates before 1980 or more than a day ahead are not believed.
    static func parse(_ text: String) -> Date? {
        guard let date = DateText.parse(text), date > Date(timeIntervalSince1970: 315_532_800),
              date < Date().addingTimeInterval(86_400) else { return nil }
        return date
    }
}
