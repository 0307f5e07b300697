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

    /// With word times, subtitle cues hold at most the words or characters asked for, each timed by its words.
    func testCuesSplitByWordsAndWidthAndHighlightWords() {
        let words = [(" One", 0.0, 0.4), (" small", 0.5, 0.9), (" step", 1.0, 1.3), (" for", 1.4, 1.5), (" everyone.", 1.6, 2.2)]
            .map { TranscriptWord(word: $0.0, start: $0.1, end: $0.2, probability: 0.9) }
        let transcript = Transcript(source: "a", model: "tiny.en", duration: 3, segments: [
            TranscriptSegment(start: 0, end: 2.2, text: "One small step for everyone.", words: words)])
        XCTAssertEqual(SubRipWriter(layout: CueLayout(maxWords: 2)).render(transcript), """
            1
            00:00:00,000 --> 00:00:00,900
            One small

            2
            00:00:01,000 --> 00:00:01,500
            step for

            3
            00:00:01,600 --> 00:00:02,200
            everyone.


            """)
        let narrow = WebVTTWriter(layout: CueLayout(maxCharacters: 14)).render(transcript)
        XCTAssertTrue(narrow.contains("00:00:00.000 --> 00:00:01.300\nOne small step\n"), narrow)
        let karaoke = WebVTTWriter(layout: CueLayout(maxWords: 3, highlightWords: true)).render(transcript)
        XCTAssertTrue(karaoke.contains("<c>One</c><00:00:00.500><c> small</c><00:00:01.000><c> step</c>"), karaoke)
        // without words (or without a layout), a cue is a segment
        XCTAssertEqual(SubRipWriter().render(transcript), "1\n00:00:00,000 --> 00:00:02,200\nOne small step for everyone.\n\n")
    }
}
