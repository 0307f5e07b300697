@testable import EarshotNotes
import XCTest

/// A summary keeps what it says once: a sentence or a clause after a semicolon that only says again what came before
/// is left out, and everything that adds a word is kept.
final class SummaryRepeatsTests: XCTestCase {
    func testASummaryThatSaysAPartAgainKeepsItOnce() {
        XCTAssertEqual(NoteWriter.withoutRepeats("The dentist needs to be called on Tuesday morning and the appointment moved to next week; the dentist needs to be called."),
                       "The dentist needs to be called on Tuesday morning and the appointment moved to next week.")
        XCTAssertEqual(NoteWriter.withoutRepeats("Anna sends the revised plan to finance by Thursday. By Thursday, Anna sends the plan to finance."),
                       "Anna sends the revised plan to finance by Thursday.")
        // parts that add something stay, however much they share
        let adds = "The launch moves to March; the press release moves with it. Claire rewrites the press release by Tuesday."
        XCTAssertEqual(NoteWriter.withoutRepeats(adds), adds)
        XCTAssertEqual(NoteWriter.withoutRepeats("Call the plumber; call the plumber"), "Call the plumber")
        XCTAssertEqual(NoteWriter.withoutRepeats("Okay. Okay."), "Okay. Okay.", "parts with no content words are not judged")
        XCTAssertEqual(NoteWriter.withoutRepeats(""), "")
    }
}
