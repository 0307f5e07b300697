@testable import EarshotSpeech
import XCTest

/// Whisper's loops are caught; ordinary speech, including short repeats people make, is not.
final class RepetitionCheckTests: XCTestCase {
    func testLoopsAreCaught() {
        XCTAssertTrue(RepetitionCheck.looksLikeALoop(
            "A small boat drifted slowly across the quiet lake. A small boat drifted slowly across the quiet lake."))
        XCTAssertTrue(RepetitionCheck.looksLikeALoop("and then the the the the end"))
    }

    func testOrdinarySpeechPasses() {
        XCTAssertFalse(RepetitionCheck.looksLikeALoop("No. No. I said we would go on Monday."))
        XCTAssertFalse(RepetitionCheck.looksLikeALoop("The train to the city leaves from the second platform."))
        XCTAssertFalse(RepetitionCheck.looksLikeALoop(""))
        XCTAssertFalse(RepetitionCheck.looksLikeALoop("very very very good"))
    }
}
