@testable import EarshotNotes
import XCTest

/// Titles without a language model: the most frequent content words, a name kept as the text writes it.
final class TitlesTests: XCTestCase {
    func testKeyWordsKeepTheirNamesAndPhrasesTogether() {
        XCTAssertEqual(Titles.keywords(from: NotesPipelineTests.meeting), "Budget, Notes, Meeting")
        // a fallback title of a small model's note read "Mrs, Rachel, Lind"
        XCTAssertEqual(Titles.keywords(from: "Mrs. Rachel Lind is surprised. Mrs. Rachel Lind was sitting at her window."),
                       "Mrs. Rachel Lind")
        XCTAssertEqual(Titles.keywords(from: "Dr. Okafor moved the scan to Friday. Dr. Okafor will call about the scan on Friday."),
                       "Dr. Okafor, Scan, Friday")
        XCTAssertEqual(Titles.keywords(from: "Ask Anna Berg about the offsite. Anna Berg books the offsite venue. Ask again."),
                       "Ask, Anna Berg")
        // a full stop ends a phrase: these words are only next to each other across sentences
        XCTAssertEqual(Titles.keywords(from: "Call the plumber. Plumber comes on Monday. Monday works for me, plumber said."),
                       "Plumber, Monday, Call")
        XCTAssertEqual(Titles.keywords(from: "um, uh, okay"), "Voice note")
    }
}
