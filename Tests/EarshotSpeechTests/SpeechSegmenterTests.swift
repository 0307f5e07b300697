import EarshotCore
@testable import EarshotSpeech
import EarshotTestSupport
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

    /// A recording read a block at a time gives exactly the pieces of the whole recording cut at once (the
    /// detector over all of it, then trimming, merging and splitting), while holding about a minute of audio
    /// at most: ten minutes of sentences, pauses of every length, and two minutes of silence.
    func testBlocksGiveTheWholeRecordingsPiecesInBoundedMemory() throws {
        var samples: [Float] = []
        for (i, sentence) in Sentences.all.enumerated() {
            samples += try TestAudio.speech(sentence).samples
            samples += TestAudio.silence(seconds: [0.1, 0.25, 0.4, 1, 3][i % 5])
        }
        let sentences = samples
        while samples.count < 8 * 60 * rate { samples += sentences }
        samples += TestAudio.silence(seconds: 120) + sentences
        let detector = try VoiceActivityDetector()

        // the reference: every region over the whole recording first, a detector window at a time, with half a
        // second of silence before and after it
        let step = VoiceActivityDetector.window, margin = PieceStream.marginWindows * step
        let heard = [Float](repeating: 0, count: margin) + samples + [Float](repeating: 0, count: margin + step)
        var regions: [SpeechRegion] = []
        for start in stride(from: 0, to: heard.count - step, by: step) {
            regions += detector.accept(heard[start..<(start + step)])
        }
        regions += detector.flush()
        let tight = regions.map { SpeechRegion(start: max(0, $0.start - margin), end: min(samples.count, $0.end - margin)) }
            .compactMap { SpeechSegmenter.trimQuiet($0, audio: samples[$0.start..<$0.end], sampleRate: rate) }
        let expected = SpeechSegmenter().pieces(from: tight, sampleRate: rate, totalSamples: samples.count)

        let stream = PieceStream(segmenter: SpeechSegmenter(), detector: detector, sampleRate: rate)
        var pieces: [SpeechSegmenter.Piece] = []
        var held = 0
        var position = 0
        let sizes = [7_000, 20_000, 13_377, 65_536, 1, 8_000]  // uneven blocks, cycled
        var i = 0
        while position < samples.count {
            let end = min(samples.count, position + sizes[i % sizes.count])
            i += 1
            let ready = stream.append(Array(samples[position..<end]))
            for item in ready {
                XCTAssertEqual(Array(item.samples), Array(samples[item.piece.read.start..<item.piece.read.end]))
            }
            pieces += ready.map(\.piece)
            held = max(held, stream.samplesHeld)
            position = end
        }
        pieces += stream.finish().map(\.piece)

        XCTAssertGreaterThan(expected.count, 50)
        XCTAssertEqual(pieces, expected)
        XCTAssertEqual(stream.length, samples.count)
        print("pieces: \(pieces.count) over \(samples.count / rate) s; most audio held: \(Double(held) / Double(rate)) s")
        XCTAssertLessThanOrEqual(held, 60 * rate, "held \(Double(held) / Double(rate)) s of a \(samples.count / rate) s recording")
    }
}
