import EarshotSpeech
import Foundation
import XCTest

/// Given a transcript, expect subtitle files that players accept and JSON that parses.
final class TranscriptWriterTests: XCTestCase {
    let transcript = Transcript(source: "talk.wav", model: "tiny.en", duration: 3725.5, segments: [
        TranscriptSegment(start: 0.5, end: 2.25, text: "Hello there."),
        TranscriptSegment(start: 3661.001, end: 3662.999, text: "An hour later."),
    ])

    func testSubRip() {
        XCTAssertEqual(SubRipWriter().render(transcript), """
            1
            00:00:00,500 --> 00:00:02,250
            Hello there.

            2
            01:01:01,001 --> 01:01:02,999
            An hour later.


            """)
    }

    func testWebVTT() {
        let vtt = WebVTTWriter().render(transcript)
        XCTAssertTrue(vtt.hasPrefix("WEBVTT\n\n00:00:00.500 --> 00:00:02.250\nHello there.\n\n"))
        XCTAssertTrue(vtt.contains("01:01:01.001 --> 01:01:02.999\nAn hour later.\n"))
    }

    func testJSONRoundTrips() throws {
        let json = JSONTranscriptWriter().render(transcript)
        let object = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any]
        XCTAssertEqual(object?["text"] as? String, "Hello there. An hour later.")
        let segments = object?["segments"] as? [[String: Any]]
        XCTAssertEqual(segments?.count, 2)
        XCTAssertEqual(segments?[1]["start"] as? Double, 3661.001)
    }

    func testPlainTextIsOneLinePerSegment() {
        XCTAssertEqual(PlainTextWriter().render(transcript), "Hello there.\nAn hour later.\n")
    }
}
