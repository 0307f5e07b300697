@testable import EarshotCore
import Foundation
import XCTest

/// One reading of dates for options, API fields and recordings' tags.
final class DateTextTests: XCTestCase {
    func testEveryFormPeopleAndFilesWriteReadsAndNothingElse() {
        let utc = Date(timeIntervalSince1970: 1_780_000_000)  // 2026-05-28T20:26:40Z
        XCTAssertEqual(DateText.parse("2026-05-28T20:26:40Z"), utc)
        XCTAssertEqual(DateText.parse("2026-05-28T20:26:40.000000Z"), utc)
        XCTAssertEqual(DateText.parse("2026-05-28T22:26:40+02:00"), utc)
        XCTAssertEqual(DateText.parse("2026-05-28T22:26:40+0200"), utc)
        var local = DateComponents(calendar: Calendar.current, year: 2026, month: 5, day: 28, hour: 14, minute: 30)
        XCTAssertEqual(DateText.parse("2026-05-28T14:30"), local.date)
        XCTAssertEqual(DateText.parse("2026-05-28 14:30"), local.date)
        local.second = 5
        XCTAssertEqual(DateText.parse("2026-05-28 14:30:05"), local.date)
        XCTAssertEqual(DateText.parse(" 2026-05-28 "), DateComponents(calendar: Calendar.current, year: 2026, month: 5, day: 28).date)
        for bad in ["", "yesterday", "28/05/2026", "2026", "2026-13-40"] { XCTAssertNil(DateText.parse(bad), bad) }
        // a recording's tag: "unknown" dates and clocks never set are not believed
        XCTAssertNil(RecordingDate.parse("1904-01-01T00:00:00Z"))
        XCTAssertNil(RecordingDate.parse("1970-01-01T00:00:00.000000Z"))
        XCTAssertNil(RecordingDate.parse(ISO8601DateFormatter().string(from: Date().addingTimeInterval(7 * 86_400))))
        XCTAssertEqual(RecordingDate.parse("2026-05-28T20:26:40Z"), utc)
    }
}
