@testable import EarshotSpeech
import XCTest

/// The scorer must judge words, not spelling: case, punctuation, hyphens and digits do not count.
final class WordErrorRateTests: XCTestCase {
    func testNumbersInDigitsEqualNumbersInWords() {
        XCTAssertEqual(WordErrorRate.rate(reference: "in fourteen sixty-nine,", hypothesis: "In 1469"), 0)
        XCTAssertEqual(WordErrorRate.rate(reference: "one thousand two hundred", hypothesis: "1,200"), 0)
        XCTAssertEqual(WordErrorRate.rate(reference: "the twenty-first century", hypothesis: "the 21st century"), 0)
        XCTAssertEqual(WordErrorRate.rate(reference: "nineteen hundred", hypothesis: "1900"), 0)
        XCTAssertEqual(WordErrorRate.rate(reference: "five dollars", hypothesis: "$5"), 0)
        XCTAssertEqual(WordErrorRate.rate(reference: "Mr. Smith", hypothesis: "mister smith"), 0)
        XCTAssertEqual(WordErrorRate.rate(reference: "at nine a.m.", hypothesis: "at 9 am"), 0)
        XCTAssertEqual(WordErrorRate.rate(reference: "four hundred and seventy-six in all", hypothesis: "476 in all"), 0)
    }

    func testCountsSubstitutionsInsertionsDeletions() {
        let c = WordErrorRate.counts(reference: "the cat sat on the mat", hypothesis: "the cat sat on a mat today")
        XCTAssertEqual(c.words, 6)
        XCTAssertEqual(c.errors, 2)
        XCTAssertEqual(WordErrorRate.rate(reference: "a b c", hypothesis: ""), 1)
        XCTAssertEqual(WordErrorRate.rate(reference: "", hypothesis: ""), 0)
    }
}
