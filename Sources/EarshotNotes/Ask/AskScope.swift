import Foundation

/// Which notes a question is asked of: one note, the notes a person is heard in, those recorded in a span of time.
/// Nil everywhere: all of them. A question that names a span itself ("last week", "yesterday", "on Monday") gets
/// that span when the asker gave none (`QuestionDates`).
public struct AskScope: Sendable, Equatable {
    public var note: Int?
    /// A person's id (`NotesLibrary.people()`): only the notes they are heard in, and their own words first.
    public var person: Int?
    /// Recorded on or after.
    public var since: Date?
    /// Recorded before.
    public var until: Date?

    public init(note: Int? = nil, person: Int? = nil, since: Date? = nil, until: Date? = nil) {
        self.note = note
        self.person = person
        self.since = since
        self.until = until
    }
}

/// The span of days a question speaks of, in the asker's calendar: "today", "yesterday", "this week", "last week",
/// "this month", "last month", "last Monday", "N days ago". Weeks begin on Monday. A day without "last" ("on Friday")
/// is as often a deadline as a day something was said, and is left to the passages.
public enum QuestionDates {
    public static func span(in question: String, now: Date = Date(), calendar: Calendar = .current) -> DateInterval? {
        var calendar = calendar
        calendar.firstWeekday = 2
        let text = " " + question.lowercased().replacingOccurrences(of: "[^a-z0-9 ]", with: " ", options: .regularExpression) + " "
        let today = calendar.startOfDay(for: now)
        func days(_ from: Int, _ count: Int) -> DateInterval {
            let start = calendar.date(byAdding: .day, value: from, to: today)!
            return DateInterval(start: start, end: calendar.date(byAdding: .day, value: count, to: start)!)
        }
        if text.contains(" today ") || text.contains(" this morning ") || text.contains(" tonight ") { return days(0, 1) }
        if text.contains(" yesterday ") { return days(-1, 1) }
        if let match = text.range(of: #" (\d+|two|three|four|five|six) days ago "#, options: .regularExpression) {
            let word = text[match].split(separator: " ")[0]
            let n = Int(word) ?? ["two": 2, "three": 3, "four": 4, "five": 5, "six": 6][String(word)] ?? 1
            return days(-n, 1)
        }
        let week = calendar.dateInterval(of: .weekOfYear, for: today)!
        if text.contains(" this week ") { return DateInterval(start: week.start, end: days(1, 0).start) }
        if text.contains(" last week ") || text.contains(" past week ") {
            return DateInterval(start: calendar.date(byAdding: .day, value: -7, to: week.start)!, end: week.start)
        }
        let month = calendar.dateInterval(of: .month, for: today)!
        if text.contains(" this month ") { return DateInterval(start: month.start, end: days(1, 0).start) }
        if text.contains(" last month ") {
            return DateInterval(start: calendar.date(byAdding: .month, value: -1, to: month.start)!, end: month.start)
        }
        let weekdays = ["sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday"]
        for (index, name) in weekdays.enumerated() where text.contains(" last \(name) ") {
            // the most recent such day before today (asked on a Monday, last Monday is a week ago)
            let back = (calendar.component(.weekday, from: today) - (index + 1) + 7) % 7
            return days(-(back == 0 ? 7 : back), 1)
        }
        return nil
    }
}
