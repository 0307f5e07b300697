import EarshotCore
import EarshotSpeech
import EarshotTestSupport
import XCTest

/// Given the same audio cut into pieces of any size, expect the same speech regions: live clients send what they
/// like (the web page an eighth of a second, a Realtime client a second), and a region must start with the speech.
final class VoiceActivityDetectorTests: XCTestCase {
    func testRegionsDoNotDependOnHowTheStreamIsCut() throws {
        var samples = TestAudio.silence(seconds: 0.4)
        for sentence in Sentences.all.prefix(3) {
            samples += try TestAudio.speech(sentence).samples + TestAudio.silence(seconds: 1.2)
        }
        samples += try TestAudio.speech("Yes.").samples + TestAudio.silence(seconds: 0.3)
        let detector = try VoiceActivityDetector()

        func regions(cut sizes: [Int]) -> [SpeechRegion] {
            detector.reset()
            var found: [SpeechRegion] = [], at = 0, i = 0
            while at < samples.count {
                let end = min(samples.count, at + sizes[i % sizes.count])
                found += detector.accept(samples[at..<end])
                at = end
                i += 1
            }
            XCTAssertEqual(detector.heard, samples.count / VoiceActivityDetector.window * VoiceActivityDetector.window)
            found += detector.flush()
            XCTAssertEqual(detector.heard, samples.count, "the silence flush adds to the last window is not the stream's")
            return found
        }
        let windowAtATime = regions(cut: [VoiceActivityDetector.window])
        XCTAssertEqual(windowAtATime.count, 4, "three sentences and a lone word")
        for sizes in [[1600], [16000], [17_000, 5, 3000, 511, 513, 8000]] {
            XCTAssertEqual(regions(cut: sizes), windowAtATime, "cut every \(sizes)")
        }
    }
}
