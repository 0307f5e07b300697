@testable import EarshotSpeech
import XCTest

/// Given VAD regions, expect padded pieces Whisper can read: neighbours merged, nothing over 30 s.
final class SpeechSegmenterTests: XCTestCase {
    let rate = 16000
    func region(_ a: Double, _ b: Double) -> SpeechRegion { SpeechRegion(start: Int(a * 16000), end: Int(b * 16000)) }

    func testCloseRegionsMergeAndFarOnesDoNot() {
        let pieces = SpeechSegmenter().pieces(from: [region(2, 4), region(4.2, 6), region(9, 10)], sampleRate: rate,
                                              totalSamples: 20 * rate)
        XCTAssertEqual(pieces.map(\.speech), [region(2, 6), region(9, 10)])
        XCTAssertEqual(pieces[0].read, region(1.5, 6.5))
    }

    func testSpeechNearTheStartIsReadFromTheStart() {
        let pieces = SpeechSegmenter().pieces(from: [region(0.7, 3)], sampleRate: rate, totalSamples: 3 * rate)
        XCTAssertEqual(pieces[0].read, region(0, 3))
    }

    func testLongSpeechIsSplitUnderWhispersWindow() {
        let pieces = SpeechSegmenter().pieces(from: [region(5, 75)], sampleRate: rate, totalSamples: 80 * rate)
        XCTAssertEqual(pieces.count, 3)
        for p in pieces { XCTAssertLessThanOrEqual(Double(p.read.end - p.read.start) / 16000, 30) }
        XCTAssertEqual(pieces.first?.speech.start, region(5, 6).start)
        XCTAssertEqual(pieces.last?.speech.end, region(5, 75).end)
    }
}
