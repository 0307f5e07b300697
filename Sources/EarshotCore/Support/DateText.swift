import Foundation

/// Dates as people and files write them, read one way everywhere (command options, API fields, recordings' tags):
/// a day (`2026-11-29`), a day and time with or without seconds (`2026-11-29T14:30`, `2026-11-29 14:30:05`), or an ISO
/// 8601 time with a zone and fractional seconds (`2026-11-29T14:30:05.250Z`, `…+02:00`, `…+0200`). Without a zone a
/// time is local, as a person means it and a recorder's clock keeps it.
public enum DateText {
    private static let localFormats = ["yyyy-MM-dd'T'HH:mm:ss.SSSSSSZ", "yyyy-MM-dd'T'HH:mm:ssZ", "yyyy-MM-dd'T'HH:mm:ss.SSSSSS",
                                       "yyyy-MM-dd'T'HH:mm:ss", "yyyy-MM-dd'T'HH:mm", "yyyy-MM-dd"]

    /// The date `text` writes, or nil when it is none of the forms above.
    public static func parse(_ text: String) -> Date? {
        let text = text.trimmingCharacters(in: .whitespaces).replacingOccurrences(of: " ", with: "T")
        // formatters made for each call: they are not safe to share across threads, and dates are read a few at a time
        let zoned = ISO8601DateFormatter()
        for options: ISO8601DateFormatter.Options in [[.withInternetDateTime, .withFractionalSeconds], [.withInternetDateTime]] {
            zoned.formatOptions = options
            if let date = zoned.date(from: text) { return date }
        }
        let local = DateFormatter()
        local.locale = Locale(identifier: "en_US_POSIX")
        for format in localFormats {
            local.dateFormat = format
            if let date = local.date(from: text) { return date }
        }
        return nil
    }
}
